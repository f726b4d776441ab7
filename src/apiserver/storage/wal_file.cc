#include "apiserver/storage/wal_file.h"

#include <fcntl.h>
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
  int rc = ::fsync(fd);
  core::Status result =
      rc == 0 ? core::ok() : core::fail(systemError("syncing directory of " + path));
  ::close(fd);
  return result;
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
    if (fd_ >= 0) {
      ::close(fd_);
    }
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

WalFile::~WalFile() {
  if (fd_ >= 0) {
    ::close(fd_);
  }
}

core::Status WalFile::sync() const {
  if (::fdatasync(fd_) != 0) {
    return core::fail(systemError("syncing the write-ahead log"));
  }
  return core::ok();
}

}  // namespace nodewright::apiserver::storage
