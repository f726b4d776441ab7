#include "http/client.h"

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

class BeastClient : public Client {
 public:
  explicit BeastClient(ClientOptions options)
      : options_(std::move(options)), tls_(ssl::context::tls_client) {}

  core::Status init() {
    boost::system::error_code ec;
    tls_.add_certificate_authority(asio::buffer(options_.caPem), ec);
    if (ec) {
      return core::fail(core::Error::invalid("bad CA certificate: " + ec.message()));
    }
    tls_.set_verify_mode(ssl::verify_peer);
    return connect();
  }

  core::Result<Response> send(std::string_view method, std::string_view target,
                              std::string_view body, std::string_view contentType) override {
    for (int attempt = 0; attempt < 2; ++attempt) {
      if (!stream_) {
        if (auto s = connect(); !s) {
          return core::fail(s.error());
        }
      }
      auto request = makeRequest(method, target);
      if (!body.empty()) {
        request.set(bhttp::field::content_type, std::string(contentType));
        request.body() = std::string(body);
      }
      request.prepare_payload();
      beast::error_code ec;
      bhttp::write(*stream_, request, ec);
      bhttp::response_parser<bhttp::string_body> parser;
      parser.body_limit(1ULL << 32);
      if (!ec) {
        bhttp::read(*stream_, buffer_, parser, ec);
      }
      if (ec) {
        // A kept-alive connection the server closed: reconnect once.
        stream_.reset();
        buffer_.clear();
        if (attempt == 0) {
          continue;
        }
        return core::fail(core::Error::internal("HTTP " + std::string(method) + " " +
                                                std::string(target) + ": " + ec.message()));
      }
      auto& message = parser.get();
      Response response;
      response.status = static_cast<int>(message.result_int());
      response.contentType = std::string(message[bhttp::field::content_type]);
      for (const auto& field : message) {
        response.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
      }
      response.body = std::move(message.body());
      if (!message.keep_alive()) {
        stream_.reset();
      }
      return response;
    }
    return core::fail(core::Error::internal("unreachable"));
  }

  core::Status stream(std::string_view target,
                      const std::function<bool(std::string_view line)>& onLine) override {
    if (!stream_) {
      if (auto s = connect(); !s) {
        return s;
      }
    }
    auto request = makeRequest("GET", target);
    beast::error_code ec;
    bhttp::write(*stream_, request, ec);
    bhttp::response_parser<bhttp::buffer_body> parser;
    parser.body_limit(boost::none);
    if (!ec) {
      bhttp::read_header(*stream_, buffer_, parser, ec);
    }
    std::string pending;
    char chunk[16384];
    bool keepGoing = true;
    while (!ec && keepGoing && !parser.is_done()) {
      parser.get().body().data = chunk;
      parser.get().body().size = sizeof chunk;
      // read_some: return as soon as some of the stream arrived, not when the buffer is full.
      bhttp::read_some(*stream_, buffer_, parser, ec);
      if (ec == bhttp::error::need_buffer) {
        ec = {};
      }
      if (ec) {
        break;
      }
      pending.append(chunk, sizeof chunk - parser.get().body().size);
      size_t newline;
      while (keepGoing && (newline = pending.find('\n')) != std::string::npos) {
        keepGoing = onLine(std::string_view(pending).substr(0, newline));
        pending.erase(0, newline + 1);
      }
    }
    stream_.reset();
    buffer_.clear();
    if (ec && ec != bhttp::error::end_of_stream && keepGoing) {
      return core::fail(
          core::Error::internal("watch " + std::string(target) + ": " + ec.message()));
    }
    return core::ok();
  }

 private:
  bhttp::request<bhttp::string_body> makeRequest(std::string_view method, std::string_view target) {
    bhttp::request<bhttp::string_body> request{
        bhttp::string_to_verb(beast::string_view(method.data(), method.size())),
        std::string(target), 11};
    request.set(bhttp::field::host, options_.host);
    request.set(bhttp::field::authorization, "Bearer " + options_.token);
    request.set(bhttp::field::accept, "application/json");
    request.keep_alive(true);
    return request;
  }

  core::Status connect() {
    boost::system::error_code ec;
    auto address = asio::ip::make_address(options_.host, ec);
    if (ec) {
      return core::fail(core::Error::invalid("bad host " + options_.host));
    }
    auto stream = std::make_unique<beast::ssl_stream<tcp::socket>>(io_, tls_);
    stream->next_layer().connect(tcp::endpoint(address, options_.port), ec);
    if (!ec) {
      stream->next_layer().set_option(tcp::no_delay(true), ec);
    }
    // The serving certificate names 127.0.0.1 and ::1 as IP SANs.
    if (!ec) {
      X509_VERIFY_PARAM* param = SSL_get0_param(stream->native_handle());
      X509_VERIFY_PARAM_set1_ip_asc(param, options_.host.c_str());
    }
    if (!ec) {
      stream->handshake(ssl::stream_base::client, ec);
    }
    if (ec) {
      return core::fail(core::Error::internal("connecting to " + options_.host + ":" +
                                              std::to_string(options_.port) + ": " + ec.message()));
    }
    stream_ = std::move(stream);
    buffer_.clear();
    return core::ok();
  }

  ClientOptions options_;
  asio::io_context io_;
  ssl::context tls_;
  std::unique_ptr<beast::ssl_stream<tcp::socket>> stream_;
  beast::flat_buffer buffer_;
};

}  // namespace

core::Result<std::unique_ptr<Client>> connectClient(const ClientOptions& options) {
  auto client = std::make_unique<BeastClient>(options);
  if (auto s = client->init(); !s) {
    return core::fail(s.error());
  }
  return std::unique_ptr<Client>(std::move(client));
}

}  // namespace nodewright::http
