#include "apiserver/storage/wal_checkpointer.h"

#include <pthread.h>

#include <utility>

namespace nodewright::apiserver::storage {

core::Result<std::unique_ptr<WalCheckpointer>> WalCheckpointer::start(const std::string& path) {
  auto db = Database::open(path);
  if (!db) {
    return core::fail(db.error());
  }
  // NORMAL syncs the log before and the database after each checkpoint, so
  // SQLite may reuse the log afterwards without risking what it held.
  if (auto ok = db->exec("PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=1000"); !ok) {
    return core::fail(ok.error().wrap("starting checkpoints"));
  }
  return std::unique_ptr<WalCheckpointer>(new WalCheckpointer(std::move(*db)));
}

WalCheckpointer::WalCheckpointer(Database db) : db_(std::move(db)) {
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "nw-store-ckpt");
    run();
  });
}

WalCheckpointer::~WalCheckpointer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void WalCheckpointer::request() {
  {
    std::lock_guard lock(mutex_);
    if (requested_) {
      return;
    }
    requested_ = true;
  }
  wake_.notify_one();
}

void WalCheckpointer::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return requested_ || stopping_; });
    if (stopping_) {
      return;
    }
    requested_ = false;
    lock.unlock();
    // A failure leaves the frames in the log, to be copied by the next request;
    // the writer checkpoints by itself should the log keep growing.
    (void)db_.checkpoint();
    lock.lock();
  }
}

}  // namespace nodewright::apiserver::storage
