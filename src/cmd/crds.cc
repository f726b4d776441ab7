#include "cmd/crds.h"

#include <fstream>
#include <ostream>
#include <string>
#include <system_error>

#include <CLI/CLI.hpp>

#include "api/crd/generate.h"
#include "cmd/command.h"

namespace nodewright::cmd {
namespace {

namespace fs = std::filesystem;

bool isGenerated(const fs::path& path) {
  std::ifstream file(path);
  std::string first;
  std::getline(file, first);
  return file && first + "\n" == api::crd::kGeneratedHeader;
}

}  // namespace

core::Result<size_t> writeCrdFiles(const api::Registry& registry, const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    return core::fail(core::Error::internal("creating " + dir.string() + ": " + ec.message()));
  }
  const std::map<std::string, std::string> files = api::crd::crdFiles(registry);
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && files.count(name) == 0 && isGenerated(entry.path())) {
      fs::remove(entry.path(), ec);
      if (ec) {
        return core::fail(
            core::Error::internal("removing " + entry.path().string() + ": " + ec.message()));
      }
    }
  }
  if (ec) {
    return core::fail(core::Error::internal("listing " + dir.string() + ": " + ec.message()));
  }
  for (const auto& [name, text] : files) {
    fs::path path = dir / name;
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file << text;
    file.close();
    if (!file) {
      return core::fail(core::Error::internal("writing " + path.string()));
    }
  }
  return files.size() - 1;  // kustomization.yaml is not a CRD
}

namespace {

struct CrdsOptions {
  std::string outputDir;
};

int crds(const CrdsOptions& o, Context& ctx) {
  if (o.outputDir.empty()) {
    ctx.out << api::crd::crdStream(ctx.registry);
    return kExitOk;
  }
  auto written = writeCrdFiles(ctx.registry, o.outputDir);
  if (!written) {
    ctx.err << "error: " << written.error().message() << "\n";
    return kExitFailed;
  }
  ctx.out << "wrote " << *written << " CRDs and kustomization.yaml to " << o.outputDir << "\n";
  return kExitOk;
}

}  // namespace

void addCrdsCommand(CLI::App& app, Context& ctx, Action& action) {
  auto o = std::make_shared<CrdsOptions>();
  CLI::App* sub = app.add_subcommand(
      "crds", "Print the CustomResourceDefinitions generated from the resource model");
  sub->add_option("--output-dir", o->outputDir,
                  "Write one <group>_<plural>.yaml per CRD and a kustomization.yaml here instead "
                  "(as in deploy/crds)");
  sub->callback([o, &ctx, &action] { action = [o, &ctx] { return crds(*o, ctx); }; });
}

}  // namespace nodewright::cmd
