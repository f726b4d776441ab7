#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "apiserver/storage/sqlite_db.h"

// Copies the write-ahead log into the database on its own connection and
// thread. A checkpoint syncs both files and can take many milliseconds on a
// busy disk; run by the committing connection (SQLite's default), it would
// stall every write queued behind it.
namespace nodewright::apiserver::storage {

class WalCheckpointer {
 public:
  // Opens a second connection to the database at `path`, which must be in WAL
  // mode.
  static core::Result<std::unique_ptr<WalCheckpointer>> start(const std::string& path);
  // Stops after the running checkpoint, if any.
  ~WalCheckpointer();

  // Asks for a checkpoint as soon as the thread is free; cheap enough to call
  // after each commit.
  void request();

 private:
  explicit WalCheckpointer(Database db);
  void run();

  Database db_;  // the thread's only
  std::mutex mutex_;
  std::condition_variable wake_;
  bool requested_ = false;  // GUARDED_BY(mutex_)
  bool stopping_ = false;   // GUARDED_BY(mutex_)
  std::thread thread_;
};

}  // namespace nodewright::apiserver::storage
