#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

#include "cmd/command.h"

namespace nodewright::cmd {

void addPlaceholder(CLI::App& parent, const std::string& name, const std::string& description,
                    int issue, Context& ctx, Action& action) {
  CLI::App* sub = parent.add_subcommand(name, description + " (not implemented yet)");
  sub->allow_extras();
  sub->callback([&ctx, &action, issue] {
    action = [&ctx, issue] {
      ctx.err << "not implemented yet: arrives with issue " << issue << "\n";
      return kExitUsage;
    };
  });
}

void addPlaceholderCommands(CLI::App& app, Context& ctx, Action& action) {
  addPlaceholder(app, "status", "Show the state of nodes, claims and cloud operations", 11, ctx,
                 action);
}

}  // namespace nodewright::cmd
