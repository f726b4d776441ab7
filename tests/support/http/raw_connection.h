#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <fstream>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>

// Clients that speak to a server byte by byte, as a hostile one would: a plain TCP connection
// and a TLS one (the certificate is not verified). Every read is bounded by a deadline, so a
// server that never answers fails the test instead of hanging it. Header-only: the http and
// apiserver tests share it.
namespace nodewright::http::testing {

using Steady = std::chrono::steady_clock;

struct ReadResult {
  std::string data;
  bool closed = false;  // the server closed (or reset) the connection
};

// True once `data` holds a response head and, when it has a Content-Length, its whole body.
inline bool responseComplete(const std::string& data) {
  size_t end = data.find("\r\n\r\n");
  if (end == std::string::npos) {
    return false;
  }
  std::string head = data.substr(0, end);
  for (char& c : head) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  size_t at = head.find("\r\ncontent-length:");
  if (at == std::string::npos) {
    return true;
  }
  size_t length = std::stoul(head.substr(at + 17));
  return data.size() >= end + 4 + length;
}

// The status code of the last response head in `data` (after any 100 Continue), or 0.
inline int statusOf(const std::string& data) {
  size_t at = data.rfind("HTTP/1.1 ");
  if (at == std::string::npos || data.size() < at + 12) {
    return 0;
  }
  return std::stoi(data.substr(at + 9, 3));
}

inline std::string headerOf(const std::string& data, std::string name) {
  std::string lower = data;
  for (char& c : lower) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  for (char& c : name) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  size_t at = lower.find("\r\n" + name + ":");
  if (at == std::string::npos) {
    return "";
  }
  size_t start = data.find_first_not_of(' ', at + name.size() + 3);
  return data.substr(start, data.find("\r\n", start) - start);
}

inline std::string bodyOf(const std::string& data) {
  size_t end = data.rfind("\r\n\r\n");
  return end == std::string::npos ? "" : data.substr(end + 4);
}

// Polls `condition` until it holds or `limit` passes; returns its last value.
inline bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds limit) {
  const auto deadline = Steady::now() + limit;
  while (!condition()) {
    if (Steady::now() >= deadline) {
      return false;
    }
    std::this_thread::yield();
  }
  return true;
}

// A number from /proc/self/status ("Threads", "VmRSS" in kB).
inline long processStatus(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field + ":", 0) == 0) {
      return std::stol(line.substr(field.size() + 1));
    }
  }
  return -1;
}

class TcpConnection {
 public:
  explicit TcpConnection(uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  }
  ~TcpConnection() { ::close(fd_); }
  TcpConnection(const TcpConnection&) = delete;
  TcpConnection& operator=(const TcpConnection&) = delete;

  bool connected() const { return connected_; }

  bool send(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) {
        return false;
      }
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

  // Reads until `done(received)`, the server closes, or `limit` passes.
  ReadResult read(std::chrono::milliseconds limit,
                  const std::function<bool(const std::string&)>& done = responseComplete) {
    ReadResult result;
    const auto deadline = Steady::now() + limit;
    while (!done(result.data)) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Steady::now());
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(std::max<int64_t>(left.count(), 0))) <= 0) {
        break;
      }
      char chunk[16 * 1024];
      ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
      if (n <= 0) {
        result.closed = true;
        break;
      }
      result.data.append(chunk, static_cast<size_t>(n));
    }
    return result;
  }

  // True when the server closed the connection within `limit` (nothing else arriving).
  bool closedWithin(std::chrono::milliseconds limit) {
    return read(limit, [](const std::string&) { return false; }).closed;
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
};

// Shuts a socket down once `limit` passes, ending a blocking read the test is in.
class SocketGuard {
 public:
  SocketGuard(int fd, std::chrono::milliseconds limit) {
    thread_ = std::thread([this, fd, limit] {
      std::unique_lock lock(mu_);
      if (!cv_.wait_for(lock, limit, [this] { return done_; })) {
        ::shutdown(fd, SHUT_RDWR);
      }
    });
  }
  ~SocketGuard() {
    {
      std::lock_guard lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  SocketGuard(const SocketGuard&) = delete;
  SocketGuard& operator=(const SocketGuard&) = delete;

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

class TlsConnection {
 public:
  explicit TlsConnection(uint16_t port)
      : tls_(boost::asio::ssl::context::tls_client), stream_(io_, tls_) {
    boost::system::error_code ec;
    stream_.next_layer().connect({boost::asio::ip::make_address("127.0.0.1"), port}, ec);
    if (!ec) {
      SocketGuard guard(stream_.next_layer().native_handle(), std::chrono::seconds(10));
      stream_.handshake(boost::asio::ssl::stream_base::client, ec);
    }
    ready_ = !ec;
  }
  TlsConnection(const TlsConnection&) = delete;
  TlsConnection& operator=(const TlsConnection&) = delete;

  bool ready() const { return ready_; }

  bool send(std::string_view bytes) {
    boost::system::error_code ec;
    SocketGuard guard(stream_.next_layer().native_handle(), std::chrono::seconds(20));
    boost::asio::write(stream_, boost::asio::buffer(bytes.data(), bytes.size()), ec);
    return !ec;
  }

  ReadResult read(std::chrono::milliseconds limit,
                  const std::function<bool(const std::string&)>& done = responseComplete) {
    ReadResult result;
    const auto start = Steady::now();
    SocketGuard guard(stream_.next_layer().native_handle(), limit);
    while (!done(result.data)) {
      char chunk[16 * 1024];
      boost::system::error_code ec;
      size_t n = stream_.read_some(boost::asio::buffer(chunk), ec);
      result.data.append(chunk, n);
      if (ec) {
        // The guard's shutdown is not the server closing.
        result.closed = Steady::now() - start < limit;
        break;
      }
    }
    return result;
  }

 private:
  boost::asio::io_context io_;
  boost::asio::ssl::context tls_;
  boost::asio::ssl::stream<boost::asio::ip::tcp::socket> stream_;
  bool ready_ = false;
};

}  // namespace nodewright::http::testing
