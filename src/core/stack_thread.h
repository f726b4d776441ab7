#pragma once

#include <pthread.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <utility>

#include "core/error.h"

namespace nodewright::core {

// The stack a thread needs to take a request body nested as deep as kube-apiserver allows
// (10,000 levels): nlohmann's copy and dump and our tree walks recurse once per level, about
// 4 KiB a level in an unoptimised sanitizer build, so the 8 MiB default is not enough there.
// Untouched stack pages cost no memory.
inline constexpr size_t kDeepInputStackBytes = 64 * 1024 * 1024;

// A joinable thread with a stack of a chosen size (std::thread takes the process default).
// Joined on destruction, so it never outlives its owner by accident.
class StackThread {
 public:
  StackThread() = default;
  // Starts `body` (any callable, move-only ones too) on a new thread with `stackBytes` of
  // stack; an error when the system refuses the thread (no memory, thread limit), and then
  // `body` is destroyed unrun.
  template <typename Body>
  static Result<StackThread> start(size_t stackBytes, Body body) {
    auto owned = std::make_unique<Body>(std::move(body));
    auto thread = create(stackBytes, &run<Body>, owned.get());
    if (thread) {
      owned.release();  // the new thread owns it now
    }
    return thread;
  }

  StackThread(StackThread&& other) noexcept;
  StackThread& operator=(StackThread&& other) noexcept;
  StackThread(const StackThread&) = delete;
  StackThread& operator=(const StackThread&) = delete;
  ~StackThread();

  bool joinable() const { return started_; }
  void join();

 private:
  template <typename Body>
  static void* run(void* arg) {
    std::unique_ptr<Body> body(static_cast<Body*>(arg));
    (*body)();
    return nullptr;
  }
  static Result<StackThread> create(size_t stackBytes, void* (*entry)(void*), void* arg);

  pthread_t thread_{};
  bool started_ = false;
};

// Runs `body` on a StackThread of kDeepInputStackBytes and waits for it (fuzzers and tools that
// decode untrusted input on their main thread). Runs it in place when no thread can be made.
void runWithDeepStack(const std::function<void()>& body);

}  // namespace nodewright::core
