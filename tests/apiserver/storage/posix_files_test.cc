#include "apiserver/storage/posix_files.h"

#include <fstream>

#include <gtest/gtest.h>

#include "apiserver/storage/store_test_support.h"

namespace nodewright::apiserver::storage {
namespace {

TEST(WalFileTest, SyncsAnExistingLog) {
  testing::TempDir dir;
  std::ofstream(dir.file("db-wal")) << "frames";
  auto wal = WalFile::open(dir.file("db"));
  ASSERT_TRUE(wal) << wal.error().message();
  EXPECT_TRUE(wal->sync());
}

TEST(WalFileTest, FailsWithoutALog) {
  testing::TempDir dir;
  auto wal = WalFile::open(dir.file("db"));
  ASSERT_FALSE(wal);
  EXPECT_EQ(wal.error().code(), core::Code::Internal);
  EXPECT_NE(wal.error().message().find("db-wal"), std::string::npos) << wal.error().message();
}

TEST(LockFileTest, SecondHolderIsRefusedUntilTheFirstLetsGo) {
  testing::TempDir dir;
  const std::string path = dir.file("db.lock");
  auto first = LockFile::acquire(path);
  ASSERT_TRUE(first) << first.error().message();
  auto second = LockFile::acquire(path);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code(), core::Code::Conflict);
  { LockFile released = std::move(*first); }
  EXPECT_TRUE(LockFile::acquire(path));
}

TEST(LockFileTest, FailsInAMissingDirectory) {
  testing::TempDir dir;
  auto lock = LockFile::acquire(dir.file("missing/db.lock"));
  ASSERT_FALSE(lock);
  EXPECT_EQ(lock.error().code(), core::Code::Internal);
}

}  // namespace
}  // namespace nodewright::apiserver::storage
