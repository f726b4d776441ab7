#pragma once

// Runs commands in-process through cmd::run and keeps what they wrote, and makes scratch
// directories for files. Header-only: tests/cmd/ compiles *_test.cc files only.

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "api/registry.h"
#include "cmd/app.h"

namespace nodewright::cmd::testing {

struct Ran {
  int code = -1;
  std::string out;
  std::string err;
};

inline Ran runWith(const api::Registry& registry, const std::vector<std::string>& args,
                   const std::string& stdinText = "") {
  std::istringstream in(stdinText);
  std::ostringstream out;
  std::ostringstream err;
  Ran r;
  r.code = run(registry, args, in, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

inline Ran runCmd(const std::vector<std::string>& args, const std::string& stdinText = "") {
  return runWith(api::builtinRegistry(), args, stdinText);
}

inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    out.push_back(line);
  }
  return out;
}

// A fresh directory, removed with everything in it when the object goes.
class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "nw-cmd-test-XXXXXX").string();
    char* made = mkdtemp(tmpl.data());
    if (made == nullptr) {
      std::abort();
    }
    path_ = made;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // Writes `text` to a path relative to the directory, creating parents; returns the full path.
  std::string write(const std::string& relative, const std::string& text) const {
    std::filesystem::path p = path_ / relative;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }

 private:
  std::filesystem::path path_;
};

inline std::string readFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace nodewright::cmd::testing
