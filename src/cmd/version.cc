#include <ostream>

#include <CLI/CLI.hpp>

#include "cmd/command.h"

namespace nodewright::cmd {

void addVersionCommand(CLI::App& app, Context& ctx, Action& action) {
  CLI::App* sub = app.add_subcommand("version", "Print the version of nodewright");
  sub->callback([&ctx, &action] {
    action = [&ctx] {
      ctx.out << "nodewright " << NW_VERSION << "\n";
      return kExitOk;
    };
  });
}

}  // namespace nodewright::cmd
