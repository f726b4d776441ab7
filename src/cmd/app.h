#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace nodewright::api {
class Registry;
}  // namespace nodewright::api

namespace nodewright::cmd {

// Runs the command line (arguments without the program name) and returns the process exit
// code. Output goes to out/err so tests can run commands in-process. Never calls exit() and
// never throws.
int run(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
        std::ostream& err);

// The same against another resource model, for tests that need kinds of their own.
int run(const api::Registry& registry, const std::vector<std::string>& args, std::istream& in,
        std::ostream& out, std::ostream& err);

}  // namespace nodewright::cmd
