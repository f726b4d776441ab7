#include "cmd/listen_address.h"

#include <charconv>

namespace nodewright::cmd {

core::Result<ListenAddress> parseListenAddress(const std::string& text, const std::string& flag,
                                               ListenScope scope) {
  auto bad = [&](const std::string& why) {
    return core::fail(core::Error::invalid(flag + ": " + why + " (got \"" + text + "\")"));
  };
  size_t colon = text.rfind(':');
  if (colon == std::string::npos) {
    return bad("expected HOST:PORT");
  }
  ListenAddress address;
  address.host = text.substr(0, colon);
  if (address.host.size() >= 2 && address.host.front() == '[' && address.host.back() == ']') {
    address.host = address.host.substr(1, address.host.size() - 2);
  }
  std::string port = text.substr(colon + 1);
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (ec != std::errc() || end != port.data() + port.size() || value > 65535) {
    return bad("the port must be a number from 0 to 65535");
  }
  address.port = static_cast<uint16_t>(value);
  if (address.host.empty()) {
    return bad("expected HOST:PORT");
  }
  if (scope == ListenScope::LoopbackOnly && address.host != "127.0.0.1" && address.host != "::1" &&
      address.host != "localhost") {
    return bad("only loopback addresses (127.0.0.1, ::1) are served");
  }
  if (address.host == "localhost") {
    address.host = "127.0.0.1";
  }
  return address;
}

}  // namespace nodewright::cmd
