#pragma once

#include <string>

#include "core/error.h"

// The few file operations the store needs beyond SQLite's. Thread-safe.
namespace nodewright::apiserver::storage {

// A second descriptor on SQLite's write-ahead log, so commits written without
// fsync can be made durable later, off the writer thread and several at a time:
// fdatasync flushes the file's data whichever descriptor wrote it.
class WalFile {
 public:
  // Opens "<dbPath>-wal", which must exist (the database is open in WAL mode
  // and has been written), and syncs the directory so the files themselves
  // survive a power loss.
  static core::Result<WalFile> open(const std::string& dbPath);

  WalFile(WalFile&& other) noexcept;
  WalFile& operator=(WalFile&& other) noexcept;
  WalFile(const WalFile&) = delete;
  WalFile& operator=(const WalFile&) = delete;
  ~WalFile();

  // Every commit that returned before this call started is durable when it
  // succeeds.
  core::Status sync() const;

 private:
  explicit WalFile(int fd) : fd_(fd) {}

  int fd_;
};

// An exclusive lock on a file, held until destruction: keeps a second store, in
// this process or another, off the same database.
class LockFile {
 public:
  // Creates the file if needed; Code::Conflict when someone else holds the
  // lock.
  static core::Result<LockFile> acquire(const std::string& path);

  LockFile(LockFile&& other) noexcept;
  LockFile& operator=(LockFile&& other) noexcept;
  LockFile(const LockFile&) = delete;
  LockFile& operator=(const LockFile&) = delete;
  ~LockFile();

 private:
  explicit LockFile(int fd) : fd_(fd) {}

  int fd_;
};

}  // namespace nodewright::apiserver::storage
