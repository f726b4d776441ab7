#pragma once

#include <functional>
#include <iosfwd>
#include <string>

#include "api/registry.h"

namespace CLI {
class App;
}  // namespace CLI

namespace nodewright::cmd {

// What every subcommand works with: its streams and the resource model. The streams and the
// registry outlive the command.
struct Context {
  std::istream& in;
  std::ostream& out;
  std::ostream& err;
  const api::Registry& registry;
};

// The work of the subcommand the user selected, run after the whole command line parsed; it
// returns the process exit code.
using Action = std::function<int()>;

// Exit codes shared by the subcommands.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;  // the input is invalid or an operation failed
inline constexpr int kExitUsage = 2;   // bad command line, or a command this build lacks

// Each subcommand registers itself on the root app; when selected its callback stores the
// action to run in `action`. Defined one per file in src/cmd/.
void addVersionCommand(CLI::App& app, Context& ctx, Action& action);
void addValidateCommand(CLI::App& app, Context& ctx, Action& action);
void addConvertCommand(CLI::App& app, Context& ctx, Action& action);
void addCrdsCommand(CLI::App& app, Context& ctx, Action& action);
void addExplainCommand(CLI::App& app, Context& ctx, Action& action);
void addUpCommand(CLI::App& app, Context& ctx, Action& action);
void addApiServerCommand(CLI::App& app, Context& ctx, Action& action);
void addEmulateCommand(CLI::App& app, Context& ctx, Action& action);
void addControllerCommand(CLI::App& app, Context& ctx, Action& action);
// `drift explain` and `disruption plan`: read-only looks at what the controllers decide.
void addDriftCommands(CLI::App& app, Context& ctx, Action& action);
void addDisruptionCommands(CLI::App& app, Context& ctx, Action& action);
// `explain-types NODEPOOL`: every instance type, fits or excluded and why.
void addExplainTypesCommand(CLI::App& app, Context& ctx, Action& action);
// `status` (alias `view`): the live terminal view of nodes, NodePools and Azure objects.
void addStatusCommand(CLI::App& app, Context& ctx, Action& action);

}  // namespace nodewright::cmd
