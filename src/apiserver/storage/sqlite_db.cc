#include "apiserver/storage/sqlite_db.h"

#include <sqlite3.h>

#include <utility>

namespace nodewright::apiserver::storage {
namespace {

core::Error sqliteError(sqlite3* db, int code, std::string_view doing) {
  std::string message(doing);
  message += ": ";
  // The connection's message is more specific than the code's when it refers to this code.
  message +=
      (db != nullptr && sqlite3_errcode(db) == code) ? sqlite3_errmsg(db) : sqlite3_errstr(code);
  return core::Error::internal(std::move(message));
}

}  // namespace

Statement::Statement(Statement&& other) noexcept : stmt_(std::exchange(other.stmt_, nullptr)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    stmt_ = std::exchange(other.stmt_, nullptr);
  }
  return *this;
}

Statement::~Statement() {
  sqlite3_finalize(stmt_);
}

core::Status Statement::bind(int index, int64_t value) {
  int code = sqlite3_bind_int64(stmt_, index, value);
  if (code != SQLITE_OK) {
    return core::fail(error(code));
  }
  return core::ok();
}

core::Status Statement::bind(int index, std::string_view text) {
  int code =
      sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_STATIC, SQLITE_UTF8);
  if (code != SQLITE_OK) {
    return core::fail(error(code));
  }
  return core::ok();
}

core::Result<bool> Statement::step() {
  int code = sqlite3_step(stmt_);
  if (code == SQLITE_ROW) {
    return true;
  }
  if (code == SQLITE_DONE) {
    return false;
  }
  core::Error failure = error(code);
  sqlite3_reset(stmt_);
  return core::fail(std::move(failure));
}

core::Status Statement::run() {
  auto stepped = step();
  reset();
  if (!stepped) {
    return core::fail(stepped.error());
  }
  return core::ok();
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int64_t Statement::columnInt64(int column) const {
  return sqlite3_column_int64(stmt_, column);
}

std::string_view Statement::columnText(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) {
    return {};
  }
  return {reinterpret_cast<const char*>(text),
          static_cast<size_t>(sqlite3_column_bytes(stmt_, column))};
}

core::Error Statement::error(int code) const {
  return sqliteError(sqlite3_db_handle(stmt_), code, sqlite3_sql(stmt_));
}

core::Result<Database> Database::open(const std::string& path) {
  sqlite3* db = nullptr;
  int code = sqlite3_open_v2(
      path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (code != SQLITE_OK) {
    core::Error failure = sqliteError(db, code, "opening " + path);
    sqlite3_close(db);  // a handle is returned even on failure
    return core::fail(std::move(failure));
  }
  sqlite3_extended_result_codes(db, 1);
  return Database(db);
}

Database::Database(sqlite3* db) : db_(db), walFrames_(std::make_unique<std::atomic<int>>(0)) {
  sqlite3_wal_hook(
      db_,
      [](void* frames, sqlite3*, const char*, int count) {
        static_cast<std::atomic<int>*>(frames)->store(count);
        return SQLITE_OK;
      },
      walFrames_.get());
}

Database::Database(Database&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), walFrames_(std::move(other.walFrames_)) {}

Database& Database::operator=(Database&& other) noexcept {
  if (this != &other) {
    sqlite3_close(db_);
    db_ = std::exchange(other.db_, nullptr);
    walFrames_ = std::move(other.walFrames_);
  }
  return *this;
}

Database::~Database() {
  sqlite3_close(db_);
}

core::Status Database::exec(const std::string& sql) {
  int code = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr);
  if (code != SQLITE_OK) {
    return core::fail(error(code, sql));
  }
  return core::ok();
}

core::Result<Statement> Database::prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int code = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                                SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (code != SQLITE_OK) {
    return core::fail(error(code, sql));
  }
  return Statement(stmt);
}

namespace {

// `sql` prepared and stepped to its first row; Internal when it has none.
core::Result<Statement> firstRow(Database& db, std::string_view sql) {
  auto stmt = db.prepare(sql);
  if (!stmt) {
    return core::fail(stmt.error());
  }
  auto row = stmt->step();
  if (!row) {
    return core::fail(row.error());
  }
  if (!*row) {
    return core::fail(core::Error::internal(std::string(sql) + ": no row"));
  }
  return std::move(*stmt);
}

}  // namespace

core::Result<int64_t> Database::queryInt64(std::string_view sql) {
  auto stmt = firstRow(*this, sql);
  if (!stmt) {
    return core::fail(stmt.error());
  }
  return stmt->columnInt64(0);
}

core::Result<std::string> Database::queryText(std::string_view sql) {
  auto stmt = firstRow(*this, sql);
  if (!stmt) {
    return core::fail(stmt.error());
  }
  return std::string(stmt->columnText(0));
}

core::Status Database::checkpoint() {
  int code = sqlite3_wal_checkpoint_v2(db_, "main", SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
  if ((code & 0xff) == SQLITE_BUSY) {
    return core::fail(core::Error(core::Code::Conflict, "checkpoint: another one is running"));
  }
  if (code != SQLITE_OK) {
    return core::fail(error(code, "checkpoint"));
  }
  return core::ok();
}

core::Status Database::checkpointAndTruncate() {
  int code = sqlite3_wal_checkpoint_v2(db_, "main", SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
  if ((code & 0xff) == SQLITE_BUSY) {
    return core::fail(core::Error(core::Code::Conflict, "checkpoint: the database stayed busy"));
  }
  if (code != SQLITE_OK) {
    return core::fail(error(code, "checkpoint"));
  }
  return core::ok();
}

core::Error Database::error(int code, std::string_view doing) const {
  return sqliteError(db_, code, doing);
}

}  // namespace nodewright::apiserver::storage
