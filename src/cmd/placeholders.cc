#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

#include "cmd/command.h"

namespace nodewright::cmd {
namespace {

// A command in DESIGN.md's contract that a later issue delivers. It accepts any flags so that
// scripts written against the contract get the clear message rather than a usage error.
void placeholder(CLI::App& parent, const std::string& name, const std::string& description,
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

}  // namespace

void addPlaceholderCommands(CLI::App& app, Context& ctx, Action& action) {
  placeholder(app, "controller", "Run the controllers against an API server and a cloud", 4, ctx,
              action);
  CLI::App* emulate = app.add_subcommand("emulate", "Run a cloud emulator");
  emulate->require_subcommand(1);
  placeholder(*emulate, "ec2", "Run the EC2 emulator", 5, ctx, action);
  placeholder(*emulate, "azure", "Run the Azure Resource Manager emulator", 9, ctx, action);
  CLI::App* drift = app.add_subcommand("drift", "Inspect drift of nodes");
  drift->require_subcommand(1);
  placeholder(*drift, "explain", "Explain why a NodeClaim has drifted", 8, ctx, action);
  CLI::App* disruption = app.add_subcommand("disruption", "Inspect disruption decisions");
  disruption->require_subcommand(1);
  placeholder(*disruption, "plan", "Show what disruption would do now", 8, ctx, action);
  placeholder(app, "status", "Show the state of nodes, claims and cloud operations", 11, ctx,
              action);
}

}  // namespace nodewright::cmd
