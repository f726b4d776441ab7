#include "http/server.h"

#include <sys/socket.h>

#include <atomic>
#include <list>
#include <mutex>
#include <thread>

#include <spdlog/spdlog.h>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

namespace nodewright::http {
namespace {

namespace asio = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = boost::asio::ip::tcp;
using TlsStream = beast::ssl_stream<tcp::socket>;

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void parseQuery(std::string_view raw, std::multimap<std::string, std::string>& out) {
  while (!raw.empty()) {
    size_t amp = raw.find('&');
    std::string_view pair = raw.substr(0, amp);
    raw = amp == std::string_view::npos ? std::string_view() : raw.substr(amp + 1);
    if (pair.empty()) continue;
    size_t eq = pair.find('=');
    std::string key = percentDecode(pair.substr(0, eq), true);
    std::string value =
        eq == std::string_view::npos ? std::string() : percentDecode(pair.substr(eq + 1), true);
    out.emplace(std::move(key), std::move(value));
  }
}

template <class Socket>
class ChunkedStream : public Stream {
 public:
  ChunkedStream(Socket& stream, bool failed) : stream_(stream), failed_(failed) {}
  bool write(std::string_view chunk) override {
    if (failed_) return false;
    if (chunk.empty()) return true;
    beast::error_code ec;
    asio::write(stream_, bhttp::make_chunk(asio::buffer(chunk.data(), chunk.size())), ec);
    failed_ = static_cast<bool>(ec);
    return !failed_;
  }
  void finish() {
    if (failed_) return;
    beast::error_code ec;
    asio::write(stream_, bhttp::make_chunk_last(), ec);
  }

 private:
  Socket& stream_;
  bool failed_;
};

template <class Socket>
class ConnectionExchange : public Exchange {
 public:
  ConnectionExchange(Socket& stream, unsigned version, bool keepAlive)
      : stream_(stream), version_(version), keepAlive_(keepAlive) {}

  void respond(Response response) override {
    if (done_) return;
    done_ = true;
    bhttp::response<bhttp::string_body> res{static_cast<bhttp::status>(response.status), version_};
    res.set(bhttp::field::content_type, response.contentType);
    res.set(bhttp::field::cache_control, "no-cache, private");
    for (auto& [name, value] : response.headers)
      res.insert(name, value);
    res.keep_alive(keepAlive_);
    res.body() = std::move(response.body);
    res.prepare_payload();
    beast::error_code ec;
    bhttp::write(stream_, res, ec);
    ok_ = !ec;
  }

  Stream& startStream(int status, std::string contentType) override {
    done_ = true;
    streamed_ = true;
    bhttp::response<bhttp::empty_body> res{static_cast<bhttp::status>(status), version_};
    res.set(bhttp::field::content_type, contentType);
    res.set(bhttp::field::cache_control, "no-cache, private");
    res.chunked(true);
    res.keep_alive(false);
    bhttp::response_serializer<bhttp::empty_body> serializer{res};
    beast::error_code ec;
    bhttp::write_header(stream_, serializer, ec);
    stream_body_ = std::make_unique<ChunkedStream<Socket>>(stream_, static_cast<bool>(ec));
    return *stream_body_;
  }

  void finish() {
    if (stream_body_) stream_body_->finish();
  }
  bool answered() const { return done_; }
  bool reusable() const { return ok_ && !streamed_ && keepAlive_; }

 private:
  Socket& stream_;
  unsigned version_;
  bool keepAlive_;
  bool done_ = false;
  bool ok_ = true;
  bool streamed_ = false;
  std::unique_ptr<ChunkedStream<Socket>> stream_body_;
};

class BeastServer : public Server {
 public:
  BeastServer(ServerOptions options, Handler handler)
      : options_(std::move(options)),
        handler_(std::move(handler)),
        tls_(ssl::context::tls_server),
        acceptor_(io_) {}

  ~BeastServer() override { stop(); }

  core::Status start() {
    boost::system::error_code ec;
    if (!options_.certificatePem.empty()) loadCertificate(ec);
    if (ec)
      return core::fail(core::Error::internal("loading the serving certificate: " + ec.message()));
    auto address = asio::ip::make_address(options_.host, ec);
    if (ec) return core::fail(core::Error::invalid("--listen: bad address " + options_.host));
    tcp::endpoint endpoint{address, options_.port};
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
      return core::fail(core::Error::internal("listening on " + options_.host + ":" +
                                              std::to_string(options_.port) + ": " + ec.message()));
    }
    port_ = acceptor_.local_endpoint().port();
    acceptThread_ = std::thread([this] { acceptLoop(); });
    return core::ok();
  }

  uint16_t port() const override { return port_; }

  void stop() override {
    if (stopped_.exchange(true)) return;
    boost::system::error_code ec;
    ::shutdown(acceptor_.native_handle(), SHUT_RDWR);
    acceptor_.close(ec);
    if (acceptThread_.joinable()) acceptThread_.join();
    std::list<Connection> connections;
    {
      std::lock_guard lock(mu_);
      for (auto& c : connections_) {
        if (*c.fd >= 0) ::shutdown(*c.fd, SHUT_RDWR);
      }
      connections.splice(connections.end(), connections_);
    }
    for (auto& c : connections)
      c.thread.join();
  }

 private:
  // A connection's socket, until its thread is about to close it (then -1, under mu_), so
  // stop() never shuts down a descriptor number the process has reused meanwhile.
  struct Connection {
    std::shared_ptr<int> fd;
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> finished;
  };

  void acceptLoop() {
    while (!stopped_) {
      tcp::socket socket(io_);
      boost::system::error_code ec;
      acceptor_.accept(socket, ec);
      if (ec) {
        if (stopped_) return;
        continue;
      }
      socket.set_option(tcp::no_delay(true), ec);
      reapFinished();
      std::lock_guard lock(mu_);
      if (stopped_) return;
      auto finished = std::make_shared<std::atomic<bool>>(false);
      auto fd = std::make_shared<int>(socket.native_handle());
      connections_.push_back(
          Connection{fd, std::thread([this, s = std::move(socket), fd, finished]() mutable {
                       serve(std::move(s), *fd);
                       finished->store(true);
                     }),
                     finished});
    }
  }

  void reapFinished() {
    std::list<Connection> done;
    {
      std::lock_guard lock(mu_);
      for (auto it = connections_.begin(); it != connections_.end();) {
        auto next = std::next(it);
        if (it->finished->load()) done.splice(done.end(), connections_, it);
        it = next;
      }
    }
    for (auto& c : done)
      c.thread.join();
  }

  void loadCertificate(boost::system::error_code& ec) {
    tls_.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                     ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 |
                     ssl::context::single_dh_use);
    tls_.use_certificate_chain(asio::buffer(options_.certificatePem), ec);
    if (!ec) tls_.use_private_key(asio::buffer(options_.privateKeyPem), ssl::context::pem, ec);
  }

  void serve(tcp::socket socket, int& fd) {
    // Destroyed after the stream: the descriptor is forgotten while it is still open.
    struct Forget {
      std::mutex& mu;
      int& fd;
      ~Forget() {
        std::lock_guard lock(mu);
        fd = -1;
      }
    } forget{mu_, fd};
    beast::error_code ec;
    if (options_.certificatePem.empty()) {
      serveRequests(socket);
      socket.shutdown(tcp::socket::shutdown_both, ec);
      return;
    }
    TlsStream stream(std::move(socket), tls_);
    stream.handshake(ssl::stream_base::server, ec);
    if (ec) return;
    serveRequests(stream);
    stream.shutdown(ec);
  }

  template <class Socket>
  void serveRequests(Socket& stream) {
    beast::error_code ec;
    beast::flat_buffer buffer;
    while (!stopped_) {
      bhttp::request_parser<bhttp::string_body> parser;
      // Bodies somewhat over the limit are read and answered 413 on a connection that stays
      // usable (a client still sending when we close would only see a reset); far larger ones
      // close the connection.
      parser.body_limit(options_.maxBodyBytes * 4);
      parser.header_limit(64 * 1024);
      bhttp::read(stream, buffer, parser, ec);
      const bool tooLarge = ec == bhttp::error::body_limit ||
                            (!ec && parser.get().body().size() > options_.maxBodyBytes);
      if (tooLarge) {
        ConnectionExchange<Socket> exchange(stream, parser.get().version(),
                                            !ec && parser.get().keep_alive());
        Response response = options_.tooLarge ? options_.tooLarge(options_.maxBodyBytes)
                                              : Response{413, "text/plain", "too large", {}};
        exchange.respond(std::move(response));
        if (ec || !exchange.reusable()) break;
        continue;
      }
      if (ec) break;
      auto& message = parser.get();
      Request request;
      request.method = std::string(message.method_string());
      std::string_view target(message.target().data(), message.target().size());
      size_t q = target.find('?');
      request.path = percentDecode(target.substr(0, q));
      if (q != std::string_view::npos) {
        request.rawQuery = std::string(target.substr(q + 1));
        parseQuery(request.rawQuery, request.query);
      }
      for (const auto& field : message) {
        std::string name(field.name_string());
        for (char& c : name)
          c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        request.headers[name] = std::string(field.value());
      }
      request.body = std::move(message.body());
      ConnectionExchange<Socket> exchange(stream, message.version(), message.keep_alive());
      try {
        handler_(request, exchange);
      } catch (const std::exception& e) {
        spdlog::error("http: handler failed for {} {}: {}", request.method, request.path, e.what());
        exchange.respond(Response{500, "text/plain", "internal error", {}});
      }
      if (!exchange.answered()) exchange.respond(Response{500, "text/plain", "no response", {}});
      exchange.finish();
      if (!exchange.reusable()) break;
    }
  }

  ServerOptions options_;
  Handler handler_;
  asio::io_context io_;
  ssl::context tls_;
  tcp::acceptor acceptor_;
  uint16_t port_ = 0;
  std::atomic<bool> stopped_{false};
  std::thread acceptThread_;
  std::mutex mu_;
  std::list<Connection> connections_;
};

}  // namespace

std::string Request::header(std::string_view name) const {
  auto it = headers.find(std::string(name));
  return it == headers.end() ? std::string() : it->second;
}

bool Request::hasParam(std::string_view name) const {
  return query.find(std::string(name)) != query.end();
}

std::string Request::param(std::string_view name) const {
  auto it = query.find(std::string(name));
  return it == query.end() ? std::string() : it->second;
}

std::string percentDecode(std::string_view text, bool plusIsSpace) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '%' && i + 2 < text.size()) {
      int hi = hexValue(text[i + 1]);
      int lo = hexValue(text[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(plusIsSpace && c == '+' ? ' ' : c);
  }
  return out;
}

core::Result<std::unique_ptr<Server>> startServer(ServerOptions options, Handler handler) {
  auto server = std::make_unique<BeastServer>(std::move(options), std::move(handler));
  if (auto status = server->start(); !status) return core::fail(status.error());
  return std::unique_ptr<Server>(std::move(server));
}

}  // namespace nodewright::http
