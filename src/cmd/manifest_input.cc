#include "cmd/manifest_input.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <sstream>
#include <system_error>

#include <CLI/CLI.hpp>

namespace nodewright::cmd {
namespace {

namespace fs = std::filesystem;

bool isManifestPath(const fs::path& p) {
  std::string ext = p.extension().string();
  return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

std::optional<std::string> readFile(const std::string& path, std::string& text) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    return "cannot read: is a directory";
  }
  errno = 0;
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return std::string("cannot read: ") + std::strerror(errno != 0 ? errno : EIO);
  }
  std::ostringstream buffer;
  buffer << file.rdbuf();
  if (file.bad()) {
    return std::string("cannot read: ") + std::strerror(errno != 0 ? errno : EIO);
  }
  text = buffer.str();
  return std::nullopt;
}

ManifestFile parse(std::string name, const std::string& text, const api::YamlOptions& options) {
  ManifestFile out;
  out.name = std::move(name);
  auto docs = api::parseDocuments(text, options);
  if (!docs) {
    out.error = docs.error().message();
  } else {
    out.documents = std::move(*docs);
  }
  return out;
}

void readDirectory(const std::string& dir, const api::YamlOptions& options,
                   std::vector<ManifestFile>& out) {
  std::vector<std::string> paths;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::follow_directory_symlink, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code typeError;
    if (it->is_regular_file(typeError) && isManifestPath(it->path())) {
      paths.push_back(it->path().string());
    }
  }
  if (ec) {
    out.push_back(ManifestFile{dir, {}, "cannot read: " + ec.message()});
    return;
  }
  if (paths.empty()) {
    out.push_back(ManifestFile{dir, {}, "no *.yaml, *.yml or *.json files found"});
    return;
  }
  std::sort(paths.begin(), paths.end());
  for (const std::string& p : paths) {
    std::string text;
    if (auto error = readFile(p, text)) {
      out.push_back(ManifestFile{p, {}, *error});
    } else {
      out.push_back(parse(p, text, options));
    }
  }
}

}  // namespace

std::vector<ManifestFile> readManifests(const std::vector<std::string>& sources, std::istream& in,
                                        const api::YamlOptions& options) {
  std::vector<ManifestFile> out;
  bool stdinRead = false;
  for (const std::string& source : sources) {
    if (source == "-") {
      if (stdinRead) {
        continue;  // a stream can be read only once
      }
      stdinRead = true;
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      out.push_back(parse(kStdinName, text, options));
      continue;
    }
    std::error_code ec;
    if (fs::is_directory(source, ec)) {
      readDirectory(source, options, out);
      continue;
    }
    std::string text;
    if (auto error = readFile(source, text)) {
      out.push_back(ManifestFile{source, {}, *error});
    } else {
      out.push_back(parse(source, text, options));
    }
  }
  return out;
}

std::optional<KindDefault> parseKindDefault(const std::string& text, const api::Registry& registry,
                                            std::string& error) {
  size_t slash = text.rfind('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == text.size()) {
    error = "--kind must be APIVERSION/KIND, e.g. karpenter.sh/v1alpha5/Provisioner";
    return std::nullopt;
  }
  KindDefault out{text.substr(0, slash), text.substr(slash + 1)};
  if (registry.find(out.apiVersion, out.kind) == nullptr) {
    error =
        "--kind: no kind \"" + out.kind + "\" is registered for version \"" + out.apiVersion + "\"";
    return std::nullopt;
  }
  return out;
}

void applyKindDefault(const KindDefault& kind, api::Json& document) {
  if (!document.is_object()) {
    return;
  }
  // Rebuilt rather than appended to, so converted output keeps apiVersion and kind first.
  api::Json out = api::Json::object();
  out["apiVersion"] =
      document.contains("apiVersion") ? document["apiVersion"] : api::Json(kind.apiVersion);
  out["kind"] = document.contains("kind") ? document["kind"] : api::Json(kind.kind);
  for (auto& [key, value] : document.items()) {
    if (key != "apiVersion" && key != "kind") {
      out[key] = std::move(value);
    }
  }
  document = std::move(out);
}

bool nameMissing(const api::Json& document, const std::vector<std::string>& elided) {
  for (const std::string& path : elided) {
    if (path == "metadata" || path == "metadata.name" || path == "metadata.generateName") {
      return false;
    }
  }
  if (!document.is_object()) {
    return false;
  }
  auto meta = document.find("metadata");
  if (meta == document.end() || !meta->is_object()) {
    return true;
  }
  for (const char* key : {"name", "generateName"}) {
    auto it = meta->find(key);
    if (it != meta->end() && it->is_string() && !it->get_ref<const std::string&>().empty()) {
      return false;
    }
  }
  return true;
}

std::string objectLabel(const api::Json& document) {
  std::string kind = "<unknown>";
  std::string name = "<unnamed>";
  if (document.is_object()) {
    if (auto it = document.find("kind");
        it != document.end() && it->is_string() && !it->get_ref<const std::string&>().empty()) {
      kind = it->get<std::string>();
    }
    if (auto meta = document.find("metadata"); meta != document.end() && meta->is_object()) {
      if (auto it = meta->find("name");
          it != meta->end() && it->is_string() && !it->get_ref<const std::string&>().empty()) {
        name = it->get<std::string>();
      }
    }
  }
  return kind + "/" + name;
}

void addManifestFlags(CLI::App& sub, ManifestFlags& flags, const std::string& strictHelp) {
  sub.add_option("-f,--filename", flags.files,
                 "A file, a directory (every *.yaml, *.yml and *.json below it) or - for stdin; "
                 "repeatable")
      ->required();
  sub.add_flag("--strict", flags.strict, strictHelp);
  sub.add_option("--kind", flags.kind,
                 "APIVERSION/KIND for documents that lack apiVersion and kind, e.g. "
                 "karpenter.sh/v1alpha5/Provisioner");
}

int visitManifests(const ManifestFlags& flags, Context& ctx,
                   const std::function<bool(api::Document& doc, const std::string& label)>& visit) {
  std::optional<KindDefault> kindDefault;
  if (!flags.kind.empty()) {
    std::string error;
    kindDefault = parseKindDefault(flags.kind, ctx.registry, error);
    if (!kindDefault) {
      ctx.err << "error: " << error << "\n";
      return kExitUsage;
    }
  }
  api::YamlOptions yamlOptions;
  yamlOptions.allowElisions = !flags.strict;
  bool ok = true;
  for (ManifestFile& file : readManifests(flags.files, ctx.in, yamlOptions)) {
    if (file.error) {
      ctx.err << file.name << ": " << *file.error << "\n";
      ok = false;
      continue;
    }
    for (api::Document& doc : file.documents) {
      if (kindDefault) {
        applyKindDefault(*kindDefault, doc.value);
      }
      const std::string label =
          file.name + ":" + std::to_string(doc.index) + ": " + objectLabel(doc.value);
      ok = visit(doc, label) && ok;
    }
  }
  return ok ? kExitOk : kExitFailed;
}

}  // namespace nodewright::cmd
