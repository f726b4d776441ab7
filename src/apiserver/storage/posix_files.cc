#include "apiserver/storage/posix_files.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

namespace nodewright::apiserver::storage {
namespace {

core::Error systemError(const std::string& doing) {
  return core::Error::internal(doing + ": " + std::strerror(errno));
}

core::Status syncDirectory(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return core::fail(systemError("opening directory of " + path));
  }
  core::Status result =
      ::fsync(fd) == 0 ? core::ok() : core::fail(systemError("syncing directory of " + path));
  ::close(fd);
  return result;
}

void closeIfOpen(int fd) {
  if (fd >= 0) {
    ::close(fd);
  }
}

}  // namespace

core::Result<WalFile> WalFile::open(const std::string& dbPath) {
  const std::string walPath = dbPath + "-wal";
  int fd = ::open(walPath.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return core::fail(systemError("opening " + walPath));
  }
  WalFile wal(fd);
  if (auto ok = syncDirectory(dbPath); !ok) {
    return core::fail(ok.error());
  }
  return wal;
}

WalFile::WalFile(WalFile&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

WalFile& WalFile::operator=(WalFile&& other) noexcept {
  if (this != &other) {
    closeIfOpen(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

WalFile::~WalFile() {
  closeIfOpen(fd_);
}

core::Status WalFile::sync() const {
  if (::fdatasync(fd_) != 0) {
    return core::fail(systemError("syncing the write-ahead log"));
  }
  return core::ok();
}

core::Result<LockFile> LockFile::acquire(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return core::fail(systemError("opening " + path));
  }
  LockFile lock(fd);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) {
      return core::fail(core::Error(core::Code::Conflict, path + " is locked by another store"));
    }
    return core::fail(systemError("locking " + path));
  }
  return lock;
}

LockFile::LockFile(LockFile&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

LockFile& LockFile::operator=(LockFile&& other) noexcept {
  if (this != &other) {
    closeIfOpen(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

LockFile::~LockFile() {
  closeIfOpen(fd_);
}

}  // namespace nodewright::apiserver::storage
