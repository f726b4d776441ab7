#include "http/server.h"

#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <limits>
#include <list>
#include <mutex>
#include <thread>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "core/hex.h"
#include "core/log.h"
#include "core/stack_thread.h"
#include "http/connection_table.h"

namespace nodewright::http {
namespace {

namespace asio = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = boost::asio::ip::tcp;
using TlsStream = beast::ssl_stream<tcp::socket>;

void parseQuery(std::string_view raw, std::multimap<std::string, std::string>& out) {
  while (!raw.empty()) {
    size_t amp = raw.find('&');
    std::string_view pair = raw.substr(0, amp);
    raw = amp == std::string_view::npos ? std::string_view() : raw.substr(amp + 1);
    if (pair.empty()) {
      continue;
    }
    size_t eq = pair.find('=');
    std::string key = percentDecode(pair.substr(0, eq), true);
    std::string value =
        eq == std::string_view::npos ? std::string() : percentDecode(pair.substr(eq + 1), true);
    out.emplace(std::move(key), std::move(value));
  }
}

// Keeps a connection's deadline while its thread blocks in a write, and lifts it afterwards.
class WriteDeadline {
 public:
  WriteDeadline(ConnectionTable& table, ConnectionTable::SlotPtr slot,
                std::chrono::milliseconds timeout)
      : table_(table), slot_(std::move(slot)), timeout_(timeout) {}
  bool begin() { return table_.enter(slot_, Phase::Busy, timeout_); }
  bool end() { return table_.enter(slot_, Phase::Busy, std::chrono::milliseconds(0)); }

 private:
  ConnectionTable& table_;
  ConnectionTable::SlotPtr slot_;
  std::chrono::milliseconds timeout_;
};

template <class Socket>
class ChunkedStream : public Stream {
 public:
  ChunkedStream(Socket& stream, WriteDeadline deadline, bool failed)
      : stream_(stream), deadline_(std::move(deadline)), failed_(failed) {}
  bool write(std::string_view chunk) override {
    if (failed_) {
      return false;
    }
    if (chunk.empty()) {
      return true;
    }
    // A watcher that stops reading would otherwise pin this thread in the write forever.
    if (!deadline_.begin()) {
      failed_ = true;
      return false;
    }
    beast::error_code ec;
    asio::write(stream_, bhttp::make_chunk(asio::buffer(chunk.data(), chunk.size())), ec);
    failed_ = static_cast<bool>(ec) || !deadline_.end();
    return !failed_;
  }
  void finish() {
    if (failed_ || !deadline_.begin()) {
      return;
    }
    beast::error_code ec;
    asio::write(stream_, bhttp::make_chunk_last(), ec);
  }

 private:
  Socket& stream_;
  WriteDeadline deadline_;
  bool failed_;
};

template <class Socket>
class ConnectionExchange : public Exchange {
 public:
  ConnectionExchange(Socket& stream, unsigned version, bool keepAlive, WriteDeadline deadline)
      : stream_(stream), version_(version), keepAlive_(keepAlive), deadline_(std::move(deadline)) {}

  // Written under the request's deadline (the connection is in its Busy phase).
  void respond(Response response) override {
    if (done_) {
      return;
    }
    done_ = true;
    bhttp::response<bhttp::string_body> res{static_cast<bhttp::status>(response.status), version_};
    res.set(bhttp::field::content_type, response.contentType);
    res.set(bhttp::field::cache_control, "no-cache, private");
    for (auto& [name, value] : response.headers) {
      res.insert(name, value);
    }
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
    // A stream is long-running: only its writes have deadlines from here on.
    const bool failed = static_cast<bool>(ec) || !deadline_.end();
    stream_body_ = std::make_unique<ChunkedStream<Socket>>(stream_, deadline_, failed);
    return *stream_body_;
  }

  void finish() {
    if (stream_body_) {
      stream_body_->finish();
    }
  }
  bool answered() const { return done_; }
  bool written() const { return ok_; }
  bool reusable() const { return ok_ && !streamed_ && keepAlive_; }

 private:
  Socket& stream_;
  unsigned version_;
  bool keepAlive_;
  WriteDeadline deadline_;
  bool done_ = false;
  bool ok_ = true;
  bool streamed_ = false;
  std::unique_ptr<ChunkedStream<Socket>> stream_body_;
};

using RequestParser = bhttp::request_parser<bhttp::string_body>;

// The request as the handler sees it, without its body.
Request requestHead(const RequestParser::value_type& message) {
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
    for (char& c : name) {
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    request.headers[name] = std::string(field.value());
  }
  return request;
}

// A request the parser rejected (as opposed to a connection that ended or timed out).
bool malformed(const beast::error_code& ec) {
  return ec.category() == bhttp::make_error_code(bhttp::error::bad_target).category() &&
         ec != bhttp::error::end_of_stream && ec != bhttp::error::partial_message;
}

bool expectsContinue(const RequestParser::value_type& message) {
  return beast::iequals(message[bhttp::field::expect], "100-continue");
}

class BeastServer : public Server {
 public:
  BeastServer(ServerOptions options, Handler handler)
      : options_(std::move(options)),
        handler_(std::move(handler)),
        table_(options_.clock ? *options_.clock : core::systemClock(),
               options_.limits.maxConnections),
        tls_(ssl::context::tls_server),
        acceptor_(io_) {}

  ~BeastServer() override { stop(); }

  core::Status start() {
    boost::system::error_code ec;
    if (!options_.certificatePem.empty()) {
      loadCertificate(ec);
    }
    if (ec) {
      return core::fail(core::Error::internal("loading the serving certificate: " + ec.message()));
    }
    auto address = asio::ip::make_address(options_.host, ec);
    if (ec) {
      return core::fail(core::Error::invalid("--listen: bad address " + options_.host));
    }
    tcp::endpoint endpoint{address, options_.port};
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec) {
      acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
    }
    if (!ec) {
      acceptor_.bind(endpoint, ec);
    }
    if (!ec) {
      acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    }
    if (ec) {
      return core::fail(core::Error::internal("listening on " + options_.host + ":" +
                                              std::to_string(options_.port) + ": " + ec.message()));
    }
    port_ = acceptor_.local_endpoint().port();
    acceptThread_ = std::thread([this] { acceptLoop(); });
    return core::ok();
  }

  uint16_t port() const override { return port_; }
  size_t openConnections() const override { return table_.open(); }

  void stop() override {
    if (stopped_.exchange(true)) {
      return;
    }
    boost::system::error_code ec;
    ::shutdown(acceptor_.native_handle(), SHUT_RDWR);
    acceptor_.close(ec);
    if (acceptThread_.joinable()) {
      acceptThread_.join();
    }
    table_.shutdownAll();
    std::list<Connection> connections;
    {
      std::lock_guard lock(mu_);
      connections.splice(connections.end(), connections_);
    }
    for (auto& c : connections) {
      c.thread.join();
    }
  }

 private:
  struct Connection {
    core::StackThread thread;
    std::shared_ptr<std::atomic<bool>> finished;
  };
  using SlotPtr = ConnectionTable::SlotPtr;

  bool tls() const { return !options_.certificatePem.empty(); }

  void acceptLoop() {
    const ConnectionLimits& limits = options_.limits;
    while (!stopped_) {
      tcp::socket socket(io_);
      boost::system::error_code ec;
      acceptor_.accept(socket, ec);
      if (ec) {
        if (stopped_) {
          return;
        }
        continue;
      }
      socket.set_option(tcp::no_delay(true), ec);
      reapFinished();
      SlotPtr slot = table_.admit(socket.native_handle(), tls() ? Phase::Handshake : Phase::Idle,
                                  tls() ? limits.handshakeTimeout : limits.idleTimeout);
      if (!slot) {
        // Every connection is serving a request: this one waits for none of them.
        core::logDebug("http: connection refused at the cap",
                       {{"max-connections", limits.maxConnections}});
        socket.close(ec);
        continue;
      }
      std::lock_guard lock(mu_);
      if (stopped_) {
        table_.release(slot);
        return;
      }
      auto finished = std::make_shared<std::atomic<bool>>(false);
      // A request thread decodes bodies as deep as kube allows: it gets the stack for them.
      auto thread = core::StackThread::start(
          core::kDeepInputStackBytes, [this, s = std::move(socket), slot, finished]() mutable {
            serve(std::move(s), slot);
            finished->store(true);
          });
      if (!thread) {
        core::logWarn("http: connection dropped", {{"error", thread.error()}});
        table_.release(slot);
        continue;
      }
      connections_.push_back(Connection{std::move(*thread), finished});
    }
  }

  void reapFinished() {
    std::list<Connection> done;
    {
      std::lock_guard lock(mu_);
      for (auto it = connections_.begin(); it != connections_.end();) {
        auto next = std::next(it);
        if (it->finished->load()) {
          done.splice(done.end(), connections_, it);
        }
        it = next;
      }
    }
    for (auto& c : done) {
      c.thread.join();
    }
  }

  void loadCertificate(boost::system::error_code& ec) {
    tls_.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                     ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 |
                     ssl::context::single_dh_use);
    tls_.use_certificate_chain(asio::buffer(options_.certificatePem), ec);
    if (!ec) {
      tls_.use_private_key(asio::buffer(options_.privateKeyPem), ssl::context::pem, ec);
    }
  }

  // Declared after the stream that owns the socket, so destroyed before it: the table forgets
  // the descriptor while it is still open, and never shuts down a number the process reused.
  struct Release {
    ConnectionTable& table;
    const SlotPtr& slot;
    ~Release() { table.release(slot); }
  };

  void serve(tcp::socket socket, const SlotPtr& slot) {
    beast::error_code ec;
    if (!tls()) {
      Release release{table_, slot};
      serveRequests(socket, slot);
      socket.shutdown(tcp::socket::shutdown_both, ec);
      return;
    }
    TlsStream stream(std::move(socket), tls_);
    Release release{table_, slot};
    stream.handshake(ssl::stream_base::server, ec);
    if (ec) {
      return;
    }
    serveRequests(stream, slot);
    // close_notify waits for the peer's: bounded like a drain.
    if (table_.enter(slot, Phase::Draining, options_.limits.drainTimeout)) {
      stream.shutdown(ec);
    }
  }

  WriteDeadline writeDeadline(const SlotPtr& slot) {
    return WriteDeadline(table_, slot, options_.limits.requestTimeout);
  }

  template <class Socket>
  void serveRequests(Socket& stream, const SlotPtr& slot) {
    const ConnectionLimits& limits = options_.limits;
    beast::error_code ec;
    beast::flat_buffer buffer;
    while (!stopped_) {
      // Idle until the next request's first byte; its headers then have their own deadline.
      if (buffer.size() == 0) {
        if (!table_.enter(slot, Phase::Idle, limits.idleTimeout)) {
          return;
        }
        const size_t n = stream.read_some(buffer.prepare(4096), ec);
        if (ec) {
          return;
        }
        buffer.commit(n);
      }
      if (!table_.enter(slot, Phase::Header, limits.headerTimeout)) {
        return;
      }
      RequestParser parser;
      parser.header_limit(static_cast<std::uint32_t>(limits.maxHeaderBytes));
      // Content-Length is judged below, after admission: a refusal comes first, as in kube.
      // (Not boost::none: Beast compares Content-Length against it as if it were zero.)
      parser.body_limit(std::numeric_limits<std::uint64_t>::max());
      bhttp::read_header(stream, buffer, parser, ec);
      if (ec == bhttp::error::header_limit) {
        refuse(stream, slot, buffer, parser, 11,
               Response{431, "text/plain", "431 Request Header Fields Too Large", {}});
        return;
      }
      if (ec) {
        if (malformed(ec)) {
          refuse(stream, slot, buffer, parser, 11,
                 Response{400, "text/plain", "400 Bad Request", {}});
        }
        return;
      }
      auto& message = parser.get();
      Request request = requestHead(message);
      Admission admission = options_.admit ? options_.admit(request) : Admission{};
      if (admission.refusal) {
        refuse(stream, slot, buffer, parser, message.version(), std::move(*admission.refusal));
        return;
      }
      if (auto length = parser.content_length(); length && *length > options_.maxBodyBytes) {
        refuse(stream, slot, buffer, parser, message.version(), tooLarge());
        return;
      }
      if (!parser.is_done()) {
        if (!table_.enter(slot, Phase::Body, limits.bodyTimeout)) {
          return;
        }
        if (expectsContinue(message)) {
          static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
          asio::write(stream, asio::buffer(kContinue.data(), kContinue.size()), ec);
          if (ec) {
            return;
          }
        }
        parser.body_limit(options_.maxBodyBytes);
        bhttp::read(stream, buffer, parser, ec);
        if (ec == bhttp::error::body_limit) {
          refuse(stream, slot, buffer, parser, message.version(), tooLarge());
          return;
        }
        if (ec) {
          return;
        }
      }
      request.body = std::move(message.body());
      if (!table_.enter(slot, Phase::Busy, limits.requestTimeout)) {
        return;
      }
      ConnectionExchange<Socket> exchange(stream, message.version(), message.keep_alive(),
                                          writeDeadline(slot));
      try {
        handler_(request, exchange);
      } catch (const std::exception& e) {
        core::logError("http: handler failed",
                       {{"method", request.method}, {"path", request.path}, {"error", e.what()}});
        exchange.respond(Response{500, "text/plain", "internal error", {}});
      }
      if (!exchange.answered()) {
        exchange.respond(Response{500, "text/plain", "no response", {}});
      }
      exchange.finish();
      admission.hold.reset();
      if (!exchange.reusable()) {
        return;
      }
    }
  }

  Response tooLarge() const {
    return options_.tooLarge ? options_.tooLarge(options_.maxBodyBytes)
                             : Response{413, "text/plain", "too large", {}};
  }

  // Answers before the body is read and closes the connection. What the client still sends
  // is read and discarded within limits first: closing with unread data would reset the
  // connection, and a client still writing its body would never see the answer.
  template <class Socket>
  void refuse(Socket& stream, const SlotPtr& slot, beast::flat_buffer& buffer,
              const RequestParser& parser, unsigned version, Response response) {
    const ConnectionLimits& limits = options_.limits;
    if (!table_.enter(slot, Phase::Busy, limits.requestTimeout)) {
      return;
    }
    ConnectionExchange<Socket> exchange(stream, version, false, writeDeadline(slot));
    exchange.respond(std::move(response));
    if (!exchange.written() || !table_.enter(slot, Phase::Draining, limits.drainTimeout)) {
      return;
    }
    uint64_t budget = limits.maxDrainBytes;
    if (parser.is_header_done() && parser.content_length()) {
      budget = std::min<uint64_t>(budget, *parser.content_length());
    }
    uint64_t drained = std::min<uint64_t>(buffer.size(), budget);
    std::array<char, 16 * 1024> scratch;
    beast::error_code ec;
    while (drained < budget) {
      drained += stream.read_some(asio::buffer(scratch), ec);
      if (ec) {
        return;
      }
    }
  }

  ServerOptions options_;
  Handler handler_;
  ConnectionTable table_;
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
      int hi = core::hexDigitValue(text[i + 1]);
      int lo = core::hexDigitValue(text[i + 2]);
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
  if (auto status = server->start(); !status) {
    return core::fail(status.error());
  }
  return std::unique_ptr<Server>(std::move(server));
}

}  // namespace nodewright::http
