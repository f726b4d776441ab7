#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace nodewright::cmd {

// Runs the command line; returns the process exit code. Output goes to out/err so tests can
// run commands in-process.
int run(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
        std::ostream& err);

}  // namespace nodewright::cmd
