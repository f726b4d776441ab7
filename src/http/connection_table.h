#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <thread>

#include "core/clock.h"

// The server's account of its open connections: what each is doing, until when it may take,
// and how many there are. A watchdog thread shuts down the socket of a connection whose
// deadline passed, which ends the blocking read or write its thread is in; that is how the
// straight-line, thread-per-connection server gets handshake, header, idle and body timeouts.
namespace nodewright::http {

enum class Phase {
  Handshake,  // TLS handshake not done yet
  Idle,       // waiting for the first byte of a request
  Header,     // reading a request line and headers
  Body,       // reading an admitted request's body
  Busy,       // the handler runs or the answer is written (no deadline)
  Draining,   // answered early; discarding what the client still sends, then closing
  Closing,    // shut down by the table (evicted or timed out); the thread is ending
};

class ConnectionTable {
 public:
  struct Slot;
  using SlotPtr = std::shared_ptr<Slot>;

  // `maxConnections` counts connections not yet shut down by the table. `clock` must outlive.
  ConnectionTable(const core::Clock& clock, size_t maxConnections);
  ~ConnectionTable();
  ConnectionTable(const ConnectionTable&) = delete;
  ConnectionTable& operator=(const ConnectionTable&) = delete;

  // Registers an accepted socket. At the cap, the connection that has waited longest without
  // an admitted request (handshake, idle or header phase) is shut down to make room: an idle
  // keep-alive connection may be closed at any time, and its client reconnects. If every
  // connection is serving a request, nullptr: the caller closes the new socket.
  SlotPtr admit(int fd, Phase phase, std::chrono::milliseconds timeout);

  // Moves a connection to `phase`; a zero timeout means no deadline. Returns false once the
  // table has shut the connection down (its thread should stop).
  bool enter(const SlotPtr& slot, Phase phase, std::chrono::milliseconds timeout);

  // The connection's thread is about to close its socket: the table forgets the descriptor, so
  // it never shuts down a number the process reused meanwhile.
  void release(const SlotPtr& slot);

  // Shuts down every registered socket (server stop); later admits are refused.
  void shutdownAll();

  // Connections the table has not shut down (for tests and metrics).
  size_t open() const;

 private:
  using SteadyTime = std::chrono::steady_clock::time_point;

  void watch();
  void shutDown(Slot& slot);             // REQUIRES mu_
  void wakeFor(SteadyTime deadline);     // REQUIRES mu_

  const core::Clock& clock_;
  const size_t maxConnections_;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::list<SlotPtr> slots_;  // GUARDED_BY(mu_)
  size_t open_ = 0;           // GUARDED_BY(mu_)
  bool stopping_ = false;     // GUARDED_BY(mu_)
  SteadyTime nextCheck_{};    // GUARDED_BY(mu_): when the watchdog wakes next
  std::thread watchdog_;
};

}  // namespace nodewright::http
