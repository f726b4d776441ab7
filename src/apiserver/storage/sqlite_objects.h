#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/storage/sqlite_db.h"
#include "apiserver/storage/wal_checkpointer.h"
#include "apiserver/storage/write_plan.h"

// The store's tables in one SQLite file: objects(key, revision, value) with each object's
// compact JSON, and meta(name, value) holding the revision counter, so a deletion's revision
// survives a restart too. Not thread-safe: only the store's writer thread uses it after open.
namespace nodewright::apiserver::storage {

class SqliteObjects {
 public:
  // Opens or creates the file in WAL mode. Commits are not synced (synchronous=NORMAL): they
  // survive a crash of the process at once, and a power loss once the write-ahead log is
  // synced (WalFile). The log exists when this returns. The caller keeps other stores off the
  // file (LockFile): SQLite's own locks would only make their writes fail.
  static core::Result<SqliteObjects> open(const std::string& path);

  // Calls `row` for every stored object in key order; returns the stored revision counter.
  core::Result<int64_t> load(
      const std::function<core::Status(std::string_view key, int64_t revision,
                                       std::string_view value)>& row);

  // Writes the planned states and the counter in one transaction; on failure nothing of it
  // remains and the connection is ready for the next one.
  core::Status commit(const std::vector<PlannedWrite>& writes, int64_t revision);

 private:
  SqliteObjects(Database db, Statement begin, Statement commit, Statement rollback,
                Statement upsert, Statement remove, Statement setRevision,
                std::unique_ptr<WalCheckpointer> checkpointer);
  core::Status writeAll(const std::vector<PlannedWrite>& writes, int64_t revision);
  void keepLogShort();

  // Statements are declared after the connection so they are finalized before it closes.
  Database db_;
  Statement begin_;
  Statement commit_;
  Statement rollback_;
  Statement upsert_;
  Statement remove_;
  Statement setRevision_;
  std::unique_ptr<WalCheckpointer> checkpointer_;
};

}  // namespace nodewright::apiserver::storage
