// Only the owner may read the data directory: it holds the object store (Secrets), the
// kubeconfig with its token and the private keys.
#include "apiserver/data_dir.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "apiserver/api_server.h"
#include "core/clock.h"
#include "support/apiserver/test_server.h"

namespace nodewright::apiserver {
namespace {

namespace fs = std::filesystem;

// The permission bits of `path` (stat, so 0644 reads as in ls -l).
unsigned modeOf(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return static_cast<unsigned>(st.st_mode & 07777);
}

TEST(DataDirTest, TheServerTightensAnOpenDataDirectoryAndItsFiles) {
  testing::TempDir temp;
  const fs::path dir = temp.path() / "data";
  // As an earlier version left it: the directory and the store world-readable.
  fs::create_directories(dir);
  fs::permissions(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                           fs::perms::others_read | fs::perms::others_exec);
  std::ofstream(dir / kStoreFile).flush();
  fs::permissions(dir / kStoreFile, fs::perms::owner_read | fs::perms::owner_write |
                                        fs::perms::group_read | fs::perms::others_read);
  ASSERT_EQ(modeOf(dir), 0755u);

  ApiServerOptions options;
  options.dataDir = dir.string();
  options.port = 0;
  auto server = startApiServer(options, core::systemClock());
  ASSERT_TRUE(server) << server.error().message();
  EXPECT_EQ(modeOf(dir), 0700u);
  EXPECT_EQ(modeOf(dir / kStoreFile), 0600u);
  EXPECT_EQ(modeOf(dir / kKubeconfigFile), 0600u);
  EXPECT_EQ(modeOf(dir / "pki"), 0700u);
  for (const char* file : {"ca.key", "apiserver.key", "token"}) {
    EXPECT_EQ(modeOf(dir / "pki" / file), 0600u) << file;
  }
  // SQLite gives its write-ahead log the database file's mode.
  if (fs::exists(dir / (std::string(kStoreFile) + "-wal"))) {
    EXPECT_EQ(modeOf(dir / (std::string(kStoreFile) + "-wal")), 0600u);
  }
  (*server)->stop();
}

TEST(DataDirTest, ANewDataDirectoryIsPrivateFromTheStart) {
  testing::TempDir temp;
  const fs::path dir = temp.path() / "a" / "b";
  ASSERT_TRUE(prepareDataDir(dir.string()));
  EXPECT_EQ(modeOf(dir), 0700u);
  EXPECT_EQ(modeOf(dir / kStoreFile), 0600u);
}

TEST(DataDirTest, ASharedDirectoryIsRefused) {
  testing::TempDir temp;
  const fs::path dir = temp.path() / "shared";
  fs::create_directories(dir);
  fs::permissions(dir, fs::perms::all | fs::perms::sticky_bit);
  auto prepared = prepareDataDir(dir.string());
  ASSERT_FALSE(prepared);
  EXPECT_NE(prepared.error().message().find("sticky bit"), std::string::npos)
      << prepared.error().message();
  EXPECT_EQ(modeOf(dir), 01777u);
}

}  // namespace
}  // namespace nodewright::apiserver
