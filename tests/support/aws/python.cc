#include "support/aws/python.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace nodewright::aws::testing {
namespace {

std::string shellQuote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  out += '\'';
  return out;
}

}  // namespace

std::string writeTempFile(const std::string& content, const std::string& suffix) {
  std::string path = (std::filesystem::temp_directory_path() / "nw-aws-XXXXXX").string() + suffix;
  int fd = mkstemps(path.data(), static_cast<int>(suffix.size()));
  if (fd < 0) {
    return "";
  }
  std::size_t written = 0;
  while (written < content.size()) {
    ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n <= 0) {
      break;
    }
    written += static_cast<std::size_t>(n);
  }
  ::close(fd);
  return path;
}

core::Result<std::string> runPython(const std::string& script,
                                    const std::vector<std::string>& args) {
  std::string file = writeTempFile(script, ".py");
  if (file.empty()) {
    return core::fail(core::Error::internal("cannot write the python script"));
  }
  std::string command = "python3 " + shellQuote(file);
  for (const auto& arg : args) {
    command += " " + shellQuote(arg);
  }
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) {
    std::filesystem::remove(file);
    return core::fail(core::Error::internal("cannot start python3"));
  }
  std::string out;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) {
    out.append(buffer, n);
  }
  int status = ::pclose(pipe);
  std::filesystem::remove(file);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return core::fail(core::Error::internal("python3 failed with status " + std::to_string(status) +
                                            ", output: " + out));
  }
  return out;
}

}  // namespace nodewright::aws::testing
