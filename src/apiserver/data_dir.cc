#include "apiserver/data_dir.h"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <system_error>

namespace nodewright::apiserver {
namespace {

namespace fs = std::filesystem;

core::Status restrict(const fs::path& path, fs::perms mode) {
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(path, ec);
  if (ec || !fs::exists(status) || status.permissions() == mode) {
    return core::ok();
  }
  fs::permissions(path, mode, fs::perm_options::replace, ec);
  if (ec) {
    return core::fail(core::Error::internal("restricting " + path.string() + " to mode " +
                                            (mode == fs::perms::owner_all ? "0700" : "0600") +
                                            ": " + ec.message()));
  }
  return core::ok();
}

}  // namespace

core::Status prepareDataDir(const std::string& dir) {
  const fs::path root(dir);
  std::error_code ec;
  fs::create_directories(root, ec);
  if (ec) {
    return core::fail(core::Error::internal("cannot create " + dir + ": " + ec.message()));
  }
  const fs::file_status status = fs::status(root, ec);
  if (!ec && (status.permissions() & fs::perms::sticky_bit) != fs::perms::none) {
    return core::fail(core::Error::invalid(
        dir + " is a shared directory (sticky bit): the data directory must be one of its own"));
  }
  if (auto s = restrict(root, fs::perms::owner_all); !s) {
    return s;
  }
  constexpr fs::perms kPrivate = fs::perms::owner_read | fs::perms::owner_write;
  const fs::path store = root / kStoreFile;
  // O_EXCL: an existing store is left as it is (and restricted below).
  if (int fd = ::open(store.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600); fd >= 0) {
    ::close(fd);
  }
  for (const std::string& name : {std::string(kStoreFile), std::string(kStoreFile) + "-wal",
                                  std::string(kStoreFile) + "-shm", std::string(kKubeconfigFile)}) {
    if (auto s = restrict(root / name, kPrivate); !s) {
      return s;
    }
  }
  return core::ok();
}

}  // namespace nodewright::apiserver
