#pragma once

#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>

// What the tests of the emulators' state files share: a fresh directory per test, reading a
// file whole, and waiting for the saver thread. Header-only, so only those tests build it.
namespace nodewright::emulators::testing {

// A new directory under the temporary directory, removed with everything in it when destroyed.
class StateDir {
 public:
  StateDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "nw-state-XXXXXX").string();
    if (::mkdtemp(pattern.data()) != nullptr) {
      path_ = pattern;
    }
  }
  ~StateDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  StateDir(const StateDir&) = delete;
  StateDir& operator=(const StateDir&) = delete;

  // `name` inside the directory.
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// The whole file; empty when it cannot be read.
inline std::string readWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void writeWhole(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// Polls `condition` until it holds or `timeout` (real time) passes; its last value. For what
// a saver thread does with nothing else to wait on.
inline bool eventually(const std::function<bool()>& condition,
                       std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return condition();
}

}  // namespace nodewright::emulators::testing
