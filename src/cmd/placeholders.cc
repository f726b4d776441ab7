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
  CLI::App* drift = app.add_subcommand("drift", "Inspect drift of nodes");
  drift->require_subcommand(1);
  addPlaceholder(*drift, "explain", "Explain why a NodeClaim has drifted", 8, ctx, action);
  CLI::App* disruption = app.add_subcommand("disruption", "Inspect disruption decisions");
  disruption->require_subcommand(1);
  addPlaceholder(*disruption, "plan", "Show what disruption would do now", 8, ctx, action);
  addPlaceholder(app, "status", "Show the state of nodes, claims and cloud operations", 11, ctx,
                 action);
}

}  // namespace nodewright::cmd
