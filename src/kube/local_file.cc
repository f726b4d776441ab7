#include "kube/local_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace nodewright::kube {

core::Result<std::string> readLocalFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    std::string message = "open " + path + ": " + std::strerror(err);
    return core::fail(err == ENOENT ? core::Error::notFound(message)
                                    : core::Error::invalid(message));
  }
  std::string out;
  char buffer[16384];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return core::fail(core::Error::invalid("read " + path + ": " + std::strerror(err)));
    }
    if (n == 0) {
      break;
    }
    out.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

std::string trimSpace(std::string_view text) {
  constexpr std::string_view kSpace = " \t\r\n\v\f";
  size_t begin = text.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) {
    return "";
  }
  size_t end = text.find_last_not_of(kSpace);
  return std::string(text.substr(begin, end - begin + 1));
}

}  // namespace nodewright::kube
