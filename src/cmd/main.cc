#include <iostream>

#include "cmd/app.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return nodewright::cmd::run(args, std::cin, std::cout, std::cerr);
}
