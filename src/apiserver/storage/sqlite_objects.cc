#include "apiserver/storage/sqlite_objects.h"

#include <utility>

namespace nodewright::apiserver::storage {
namespace {

constexpr int64_t kSchemaVersion = 1;
// Log frames (pages) that trigger a background checkpoint: SQLite's default.
constexpr int kCheckpointFrames = 1000;
// Under sustained writes the background checkpoint never catches up with the last commit, and
// SQLite reuses the log only once it has; so from here on (about 64 MiB of log) the writer
// checkpoints the whole log and truncates it, a stall of some milliseconds every few seconds of
// full load. (A passive one here was busy whenever the background one ran, and the log grew.)
constexpr int kWriterCheckpointFrames = 16000;

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS objects(
  key TEXT PRIMARY KEY NOT NULL,
  revision INTEGER NOT NULL,
  value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS meta(
  name TEXT PRIMARY KEY NOT NULL,
  value INTEGER NOT NULL);
INSERT OR IGNORE INTO meta(name, value) VALUES('revision', 0);
UPDATE meta SET value = value WHERE name = 'revision';
)sql";

}  // namespace

SqliteObjects::SqliteObjects(Database db, Statement begin, Statement commit, Statement rollback,
                             Statement upsert, Statement remove, Statement setRevision,
                             std::unique_ptr<WalCheckpointer> checkpointer)
    : db_(std::move(db)),
      begin_(std::move(begin)),
      commit_(std::move(commit)),
      rollback_(std::move(rollback)),
      upsert_(std::move(upsert)),
      remove_(std::move(remove)),
      setRevision_(std::move(setRevision)),
      checkpointer_(std::move(checkpointer)) {}

core::Result<SqliteObjects> SqliteObjects::open(const std::string& path) {
  auto db = Database::open(path);
  if (!db) {
    return core::fail(db.error());
  }
  // Only the checkpointer's connection can hold a lock we would wait for, and only briefly.
  if (auto ok = db->exec("PRAGMA busy_timeout=1000"); !ok) {
    return core::fail(ok.error());
  }
  auto mode = db->queryText("PRAGMA journal_mode=WAL");
  if (!mode) {
    return core::fail(mode.error().wrap("opening " + path));
  }
  if (*mode != "wal") {
    return core::fail(
        core::Error::internal("opening " + path + ": journal mode is " + *mode + ", not wal"));
  }
  auto version = db->queryInt64("PRAGMA user_version");
  if (!version) {
    return core::fail(version.error().wrap("opening " + path));
  }
  if (*version > kSchemaVersion) {
    return core::fail(core::Error::internal("opening " + path + ": schema version " +
                                            std::to_string(*version) + " is newer than " +
                                            std::to_string(kSchemaVersion)));
  }
  // The rewrite of the counter in the schema script makes sure the write-ahead log exists.
  std::string setup =
      "PRAGMA synchronous=NORMAL; PRAGMA user_version=" + std::to_string(kSchemaVersion) + ";" +
      kSchema;
  if (auto ok = db->exec(setup); !ok) {
    return core::fail(ok.error().wrap("opening " + path));
  }
  const char* sql[] = {
      "BEGIN IMMEDIATE",
      "COMMIT",
      "ROLLBACK",
      ("INSERT INTO objects(key, revision, value) VALUES(?1, ?2, ?3) "
       "ON CONFLICT(key) DO UPDATE SET revision = excluded.revision, value = excluded.value"),
      "DELETE FROM objects WHERE key = ?1",
      "UPDATE meta SET value = ?1 WHERE name = 'revision'",
  };
  std::vector<Statement> statements;
  for (const char* text : sql) {
    auto stmt = db->prepare(text);
    if (!stmt) {
      return core::fail(stmt.error().wrap("opening " + path));
    }
    statements.push_back(std::move(*stmt));
  }
  auto checkpointer = WalCheckpointer::start(path);
  if (!checkpointer) {
    return core::fail(checkpointer.error().wrap("opening " + path));
  }
  return SqliteObjects(std::move(*db), std::move(statements[0]), std::move(statements[1]),
                       std::move(statements[2]), std::move(statements[3]), std::move(statements[4]),
                       std::move(statements[5]), std::move(*checkpointer));
}

core::Result<int64_t> SqliteObjects::load(
    const std::function<core::Status(std::string_view, int64_t, std::string_view)>& row) {
  auto counter = db_.queryInt64("SELECT value FROM meta WHERE name = 'revision'");
  if (!counter) {
    return core::fail(counter.error());
  }
  auto rows = db_.prepare("SELECT key, revision, value FROM objects ORDER BY key");
  if (!rows) {
    return core::fail(rows.error());
  }
  for (;;) {
    auto ready = rows->step();
    if (!ready) {
      return core::fail(ready.error());
    }
    if (!*ready) {
      break;
    }
    if (auto ok = row(rows->columnText(0), rows->columnInt64(1), rows->columnText(2)); !ok) {
      return core::fail(ok.error());
    }
  }
  return *counter;
}

core::Status SqliteObjects::commit(const std::vector<PlannedWrite>& writes, int64_t revision) {
  if (auto ok = begin_.run(); !ok) {
    return ok;
  }
  auto written = writeAll(writes, revision);
  if (written) {
    written = commit_.run();
  }
  if (!written) {
    // SQLite may already have rolled back (e.g. on a full disk); then this fails harmlessly.
    (void)rollback_.run();
    return written;
  }
  keepLogShort();
  return written;
}

void SqliteObjects::keepLogShort() {
  int frames = db_.walFrames();
  if (frames >= kWriterCheckpointFrames) {
    // The writer's turn: no new background request competes for the checkpoint lock (under CPU
    // load a background pass over a long log held it through every retry and the log grew past
    // 96 MiB). Still busy after the busy timeout: a later commit tries again.
    (void)db_.checkpointAndTruncate();
  } else if (frames >= kCheckpointFrames) {
    checkpointer_->request();
  }
}

core::Status SqliteObjects::writeAll(const std::vector<PlannedWrite>& writes, int64_t revision) {
  for (const PlannedWrite& write : writes) {
    const Stored& stored = *write.stored;
    core::Status ok;
    if (write.type == EventType::Deleted) {
      ok = remove_.bind(1, stored.key);
      ok = ok ? remove_.run() : ok;
    } else {
      ok = upsert_.bind(1, stored.key);
      ok = ok ? upsert_.bind(2, stored.revision) : ok;
      ok = ok ? upsert_.bind(3, *stored.text) : ok;
      ok = ok ? upsert_.run() : ok;
    }
    if (!ok) {
      upsert_.reset();
      remove_.reset();
      return ok;
    }
  }
  if (auto ok = setRevision_.bind(1, revision); !ok) {
    setRevision_.reset();
    return ok;
  }
  return setRevision_.run();
}

}  // namespace nodewright::apiserver::storage
