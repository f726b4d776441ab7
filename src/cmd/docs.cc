#include "cmd/docs.h"

#include <memory>
#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

#include "cmd/app.h"
#include "cmd/reference/reference.h"

namespace nodewright::cmd {
namespace {

struct DocsOptions {
  std::string outputDir;
};

int docs(const DocsOptions& o, Context& ctx) {
  // A tree of its own, never parsed: the one that parsed this command line holds the values
  // the user gave (--output-dir itself), which would read as defaults.
  Action unused;
  GlobalFlags global;
  std::unique_ptr<CLI::App> tree = makeApp(ctx, unused, global);
  const reference::Files files = reference::generate(*tree, ctx.registry);
  auto written = reference::write(files, o.outputDir);
  if (!written) {
    ctx.err << "error: " << written.error().message() << "\n";
    return kExitFailed;
  }
  ctx.out << "wrote " << *written << " files to " << o.outputDir << "\n";
  return kExitOk;
}

}  // namespace

void addDocsCommand(CLI::App& app, Context& ctx, Action& action) {
  auto o = std::make_shared<DocsOptions>();
  CLI::App* sub = app.add_subcommand(
      "docs", "Write the flag and field reference (docs/reference/) generated from this binary");
  sub->add_option("--output-dir", o->outputDir,
                  "Directory to write flags.md, README.md and fields/ into (created if missing)")
      ->required();
  sub->callback([o, &ctx, &action] { action = [o, &ctx] { return docs(*o, ctx); }; });
}

}  // namespace nodewright::cmd
