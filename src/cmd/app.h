#pragma once

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "cmd/command.h"

namespace nodewright::cmd {

// Runs the command line (arguments without the program name) and returns the process exit
// code. Output goes to out/err so tests can run commands in-process. Never calls exit() and
// never throws.
int run(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
        std::ostream& err);

// The same against another resource model, for tests that need kinds of their own.
int run(const api::Registry& registry, const std::vector<std::string>& args, std::istream& in,
        std::ostream& out, std::ostream& err);

// The flags of `nodewright` itself, before the command.
struct GlobalFlags {
  std::string logFormat = "console";
  std::string logLevel = "info";
};

// The whole command tree as the binary parses it: every command registered against `ctx` and
// `action`, the global flags bound to `global` (all three must outlive the tree). `docs` builds
// a second one to document it.
std::unique_ptr<CLI::App> makeApp(Context& ctx, Action& action, GlobalFlags& global);

}  // namespace nodewright::cmd
