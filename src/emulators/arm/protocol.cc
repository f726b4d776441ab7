#include "emulators/arm/protocol.h"

#include <cmath>
#include <ctime>

#include <fmt/format.h>
#include <openssl/rand.h>

#include "core/check.h"

namespace nodewright::emulators::arm {

Reply errorReply(const ArmError& error) {
  Reply r;
  r.status = error.status;
  r.body = {{"error", {{"code", error.code}, {"message", error.message}}}};
  r.headers = error.headers;
  r.errorCode = error.code;
  return r;
}

Reply jsonReply(int status, api::Json body) {
  Reply r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

std::string newUuid() {
  unsigned char b[16];
  NW_CHECK(RAND_bytes(b, sizeof b) == 1);
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);
  return fmt::format(
      "{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-"
      "{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
      b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
      b[15]);
}

std::string retryAfterSeconds(std::chrono::microseconds wait) {
  const double seconds = std::ceil(static_cast<double>(wait.count()) / 1e6);
  return std::to_string(std::max<int64_t>(1, static_cast<int64_t>(seconds)));
}

std::string armTime(std::chrono::system_clock::time_point t) {
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
  const int64_t fraction = ((micros % 1000000) + 1000000) % 1000000;
  const time_t secs = static_cast<time_t>((micros - fraction) / 1000000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm);
  return fmt::format("{}.{:07d}Z", text, fraction * 10);
}

std::vector<std::pair<std::string, std::string>> parseForm(std::string_view body) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t start = 0;
  while (start < body.size()) {
    size_t end = body.find('&', start);
    if (end == std::string_view::npos) {
      end = body.size();
    }
    std::string_view pair = body.substr(start, end - start);
    if (!pair.empty()) {
      const size_t eq = pair.find('=');
      std::string_view name = pair.substr(0, eq);
      std::string_view value = eq == std::string_view::npos ? "" : pair.substr(eq + 1);
      out.emplace_back(http::percentDecode(name, true), http::percentDecode(value, true));
    }
    start = end + 1;
  }
  return out;
}

}  // namespace nodewright::emulators::arm
