#include "cmd/app.h"

#include <iostream>

#include <CLI/CLI.hpp>

namespace nodewright::cmd {

int run(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
        std::ostream& err) {
  (void)in;
  CLI::App app{"nodewright: Kubernetes node lifecycle and cloud infrastructure controller"};
  app.require_subcommand(1);
  auto* version = app.add_subcommand("version", "Print the version");
  version->callback([&] { out << "nodewright " << NW_VERSION << "\n"; });
  std::vector<std::string> argv(args.rbegin(), args.rend());
  try {
    app.parse(argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e, out, err);
  }
  return 0;
}

}  // namespace nodewright::cmd
