#include "core/stack_thread.h"

#include <cstring>
#include <string>
#include <utility>

namespace nodewright::core {

Result<StackThread> StackThread::create(size_t stackBytes, void* (*entry)(void*), void* arg) {
  pthread_attr_t attr;
  if (int rc = pthread_attr_init(&attr); rc != 0) {
    return fail(Error::internal(std::string("thread attributes: ") + std::strerror(rc)));
  }
  int rc = pthread_attr_setstacksize(&attr, stackBytes);
  StackThread thread;
  if (rc == 0) {
    rc = pthread_create(&thread.thread_, &attr, entry, arg);
  }
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    return fail(Error::internal(std::string("starting a thread: ") + std::strerror(rc)));
  }
  thread.started_ = true;
  return thread;
}

StackThread::StackThread(StackThread&& other) noexcept
    : thread_(other.thread_), started_(std::exchange(other.started_, false)) {}

StackThread& StackThread::operator=(StackThread&& other) noexcept {
  if (this != &other) {
    join();
    thread_ = other.thread_;
    started_ = std::exchange(other.started_, false);
  }
  return *this;
}

StackThread::~StackThread() { join(); }

void StackThread::join() {
  if (started_) {
    pthread_join(thread_, nullptr);
    started_ = false;
  }
}

void runWithDeepStack(const std::function<void()>& body) {
  auto thread = StackThread::start(kDeepInputStackBytes, [&body] { body(); });
  if (!thread) {
    body();
  }
}

}  // namespace nodewright::core
