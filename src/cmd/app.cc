#include "cmd/app.h"

#include <exception>
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include "api/registry.h"
#include "cmd/command.h"
#include "cmd/docs.h"
#include "runtime/logging.h"

namespace nodewright::cmd {

std::unique_ptr<CLI::App> makeApp(Context& ctx, Action& action, GlobalFlags& global) {
  auto owned = std::make_unique<CLI::App>(
      "nodewright: Kubernetes node lifecycle and cloud infrastructure controller", "nodewright");
  CLI::App& app = *owned;
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("nodewright ") + NW_VERSION);
  app.add_option("--log-format", global.logFormat, "Log lines as console text or JSON objects")
      ->check(CLI::IsMember({"console", "json"}));
  app.add_option("--log-level", global.logLevel, "trace, debug, info, warn or error");
  addUpCommand(app, ctx, action);
  addApiServerCommand(app, ctx, action);
  addEmulateCommand(app, ctx, action);
  addControllerCommand(app, ctx, action);
  addDriftCommands(app, ctx, action);
  addDisruptionCommands(app, ctx, action);
  addExplainTypesCommand(app, ctx, action);
  addValidateCommand(app, ctx, action);
  addConvertCommand(app, ctx, action);
  addExplainCommand(app, ctx, action);
  addCrdsCommand(app, ctx, action);
  addVersionCommand(app, ctx, action);
  addStatusCommand(app, ctx, action);
  addDocsCommand(app, ctx, action);
  return owned;
}

int run(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
        std::ostream& err) {
  return run(api::builtinRegistry(), args, in, out, err);
}

int run(const api::Registry& registry, const std::vector<std::string>& args, std::istream& in,
        std::ostream& out, std::ostream& err) {
  // Everything, including building the registry, happens inside the try: an exception is a
  // bug or an environment failure, and either way the caller gets an exit code.
  try {
    Context ctx{in, out, err, registry};
    Action action;
    GlobalFlags global;
    std::unique_ptr<CLI::App> owned = makeApp(ctx, action, global);
    CLI::App& app = *owned;

    // CLI11 would report a mistyped command as a missing one; name it instead.
    if (!args.empty() && !args.front().empty() && args.front()[0] != '-') {
      try {
        app.get_subcommand(args.front());
      } catch (const CLI::OptionNotFound&) {
        err << "unknown command \"" << args.front() << "\"\n"
            << "Run with --help for more information.\n";
        return kExitUsage;
      }
    }
    std::vector<std::string> argv(args.rbegin(), args.rend());
    try {
      app.parse(argv);
    } catch (const CLI::ParseError& e) {
      int code = app.exit(e, out, err);
      return code == 0 ? kExitOk : kExitUsage;
    }
    if (!action) {
      return kExitUsage;
    }
    runtime::LogOptions logging{*runtime::parseLogFormat(global.logFormat), global.logLevel};
    if (auto configured = runtime::configureLogging(logging); !configured) {
      err << "error: " << configured.error().message() << "\n";
      return kExitUsage;
    }
    return action();
  } catch (const std::exception& e) {
    err << "error: " << e.what() << "\n";
  } catch (...) {
    err << "error: unexpected failure\n";
  }
  return kExitFailed;
}

}  // namespace nodewright::cmd
