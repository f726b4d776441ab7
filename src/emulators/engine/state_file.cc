#include "emulators/engine/state_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace nodewright::emulators {
namespace {

core::Error invalid(const std::string& path, std::string_view what) {
  return core::Error::invalid(fmt::format("state file {}: {}", path, what));
}

core::Error systemError(const std::string& path, std::string_view doing) {
  return core::Error::internal(
      fmt::format("state file {}: {}: {}", path, doing, std::strerror(errno)));
}

core::Status writeAll(int fd, const std::string& data) {
  size_t written = 0;
  while (written < data.size()) {
    const ssize_t n = ::write(fd, data.data() + written, data.size() - written);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return core::fail(core::Error::internal("write failed"));
    }
    written += static_cast<size_t>(n);
  }
  return core::ok();
}

}  // namespace

core::Result<std::optional<api::Json>> readStateFile(const std::string& path,
                                                     std::string_view format, int64_t version) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) && !ec) {
    return std::optional<api::Json>();
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in || ec) {
    return core::fail(invalid(path, "cannot be read"));
  }
  api::Json document = api::Json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) {
    return core::fail(invalid(path, "not valid JSON (a damaged or foreign file)"));
  }
  if (!document.is_object() || !document.contains("format") || !document["format"].is_string() ||
      document["format"].get<std::string>() != format) {
    return core::fail(invalid(path, fmt::format("not a {} file", format)));
  }
  if (!document.contains("version") || !document["version"].is_number_integer()) {
    return core::fail(invalid(path, "no version number"));
  }
  if (const int64_t got = document["version"].get<int64_t>(); got != version) {
    return core::fail(invalid(
        path,
        fmt::format("version {} is not supported (this build reads version {})", got, version)));
  }
  return std::optional<api::Json>(std::move(document));
}

core::Status writeStateFile(const std::string& path, const api::Json& document) {
  const std::string temporary = path + ".tmp";
  const std::string text = document.dump();
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    return core::fail(systemError(temporary, "opening"));
  }
  const core::Status written = writeAll(fd, text);
  const bool synced = written && ::fsync(fd) == 0;
  ::close(fd);
  if (!written || !synced) {
    const core::Error error = systemError(temporary, "writing");
    ::unlink(temporary.c_str());
    return core::fail(error);
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const core::Error error = systemError(path, "renaming the new file into place");
    ::unlink(temporary.c_str());
    return core::fail(error);
  }
  // The rename itself survives a power loss only once the directory is synced.
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) {
    dir = ".";
  }
  if (const int dirFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dirFd >= 0) {
    ::fsync(dirFd);
    ::close(dirFd);
  }
  return core::ok();
}

}  // namespace nodewright::emulators
