#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/error.h"

struct sqlite3;
struct sqlite3_stmt;

// Thin owners of the sqlite3 C API that turn result codes into core::Error values, so no SQLite
// status leaks past this file. Not thread-safe: one thread uses a connection at a time.
namespace nodewright::apiserver::storage {

class Statement {
 public:
  explicit Statement(sqlite3_stmt* stmt) : stmt_(stmt) {}
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Bound text is not copied: it must outlive the next step() or run().
  core::Status bind(int index, int64_t value);
  core::Status bind(int index, std::string_view text);

  // Advances the statement: true when a row is ready, false when done. On error the statement
  // is reset, so it can be bound and run again.
  core::Result<bool> step();
  // Steps a statement that returns no rows, then resets it and clears its bindings.
  core::Status run();
  void reset();

  int64_t columnInt64(int column) const;
  std::string_view columnText(int column) const;

 private:
  core::Error error(int code) const;

  sqlite3_stmt* stmt_;
};

class Database {
 public:
  // Opens or creates the file; fails when the path cannot be opened read-write.
  static core::Result<Database> open(const std::string& path);

  Database(Database&& other) noexcept;
  Database& operator=(Database&& other) noexcept;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  // Statements prepared from this connection must be destroyed first.
  ~Database();

  // Runs one or more statements that return no rows we need.
  core::Status exec(const std::string& sql);
  core::Result<Statement> prepare(std::string_view sql);
  // Runs a query returning one integer (a PRAGMA or a single-row SELECT).
  core::Result<int64_t> queryInt64(std::string_view sql);
  core::Result<std::string> queryText(std::string_view sql);

  // Copies committed pages from the write-ahead log into the database without waiting for, or
  // blocking, a writer on another connection. Code::Conflict when another checkpoint runs.
  core::Status checkpoint();
  // Copies the whole log into the database, waiting (busy_timeout) for a checkpoint running on
  // another connection, and truncates the log to zero bytes. The only way to shrink a log that
  // passive checkpoints never catch up with because commits keep landing meanwhile.
  core::Status checkpointAndTruncate();
  // Frames in the write-ahead log after this connection's last commit. Tracking them replaces
  // SQLite's automatic checkpoints, which would run inside the committing call.
  int walFrames() const { return walFrames_->load(); }

 private:
  explicit Database(sqlite3* db);
  core::Error error(int code, std::string_view doing) const;

  sqlite3* db_;
  // On the heap so SQLite's hook keeps a stable address when the Database moves.
  std::unique_ptr<std::atomic<int>> walFrames_;
};

}  // namespace nodewright::apiserver::storage
