#include "aws/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "aws/query.h"
#include "core/check.h"
#include "core/hex.h"
#include "core/sha256.h"
#include "core/text.h"

namespace nodewright::aws::sigv4 {
namespace {

using Digest = std::array<unsigned char, 32>;

constexpr std::string_view kAlgorithm = "AWS4-HMAC-SHA256";
constexpr std::chrono::seconds kMaxPresignExpiry = std::chrono::hours(24 * 7);

char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + ('a' - 'A')) : c;
}

Digest hmac(std::string_view key, std::string_view data) {
  Digest out{};
  unsigned int size = 0;
  NW_CHECK(HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
                reinterpret_cast<const unsigned char*>(data.data()), data.size(), out.data(),
                &size) != nullptr);
  return out;
}

std::string_view view(const Digest& digest) {
  return {reinterpret_cast<const char*>(digest.data()), digest.size()};
}

bool isWhitespace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

// Trims and collapses runs of whitespace to one space, as the canonical headers require.
void appendHeaderValue(std::string& out, std::string_view value) {
  bool pendingSpace = false;
  bool any = false;
  for (char c : value) {
    if (isWhitespace(c)) {
      pendingSpace = any;
      continue;
    }
    if (pendingSpace) {
      out += ' ';
    }
    out += c;
    pendingSpace = false;
    any = true;
  }
}

// Non-S3 services sign the path with dot segments and empty segments removed (the SigV4 test
// suite's normalize-path cases), encoded once more.
std::string canonicalUri(std::string_view path, std::string_view service) {
  if (path.empty()) {
    return "/";
  }
  if (service == "s3") {
    return std::string(path);
  }
  std::vector<std::string_view> segments;
  bool trailingSlash = false;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t slash = path.find('/', start);
    std::string_view segment = path.substr(
        start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    bool last = slash == std::string_view::npos;
    trailingSlash = last && (segment.empty() || segment == "." || segment == "..");
    if (segment == "..") {
      if (!segments.empty()) {
        segments.pop_back();
      }
    } else if (!segment.empty() && segment != ".") {
      segments.push_back(segment);
    }
    if (last) {
      break;
    }
    start = slash + 1;
  }
  std::string out = "/";
  for (std::size_t i = 0; i < segments.size(); ++i) {
    if (i > 0) {
      out += '/';
    }
    out += uriEncode(segments[i]);
  }
  if (trailingSlash && !segments.empty()) {
    out += '/';
  }
  return out;
}

// Each name and value is decoded and encoded again, so that any client's escaping (or none, as
// in the test suite's raw UTF-8) yields the one canonical form. A broken escape is taken
// literally.
std::string canonicalComponent(std::string_view raw) {
  auto decoded = uriDecode(raw, false);
  return uriEncode(decoded ? std::string_view(*decoded) : raw);
}

std::string canonicalQuery(std::string_view query, bool dropSignature) {
  std::vector<std::pair<std::string, std::string>> pairs;
  while (!query.empty()) {
    std::size_t amp = query.find('&');
    std::string_view piece = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (piece.empty()) {
      continue;
    }
    std::size_t eq = piece.find('=');
    std::string name = canonicalComponent(piece.substr(0, eq));
    if (dropSignature && name == "X-Amz-Signature") {
      continue;
    }
    pairs.emplace_back(std::move(name), eq == std::string_view::npos
                                            ? std::string()
                                            : canonicalComponent(piece.substr(eq + 1)));
  }
  std::sort(pairs.begin(), pairs.end());
  std::string out;
  for (const auto& [name, value] : pairs) {
    if (!out.empty()) {
      out += '&';
    }
    out += name;
    out += '=';
    out += value;
  }
  return out;
}

bool unsignable(std::string_view lowerName) {
  // Hop-by-hop headers may be rewritten by proxies; User-Agent and the trace id are changed by
  // SDK layers after signing. Same set as botocore.
  static constexpr std::string_view kSkipped[] = {"authorization",
                                                  "connection",
                                                  "expect",
                                                  "keep-alive",
                                                  "proxy-authenticate",
                                                  "proxy-authorization",
                                                  "te",
                                                  "trailer",
                                                  "transfer-encoding",
                                                  "upgrade",
                                                  "user-agent",
                                                  "x-amzn-trace-id"};
  return std::find(std::begin(kSkipped), std::end(kSkipped), lowerName) != std::end(kSkipped);
}

std::vector<std::string> signableHeaders(const Headers& headers) {
  std::vector<std::string> names;
  for (auto it = headers.begin(); it != headers.end(); it = headers.upper_bound(it->first)) {
    std::string name = core::lowerAscii(it->first);
    if (!unsignable(name)) {
      names.push_back(std::move(name));
    }
  }
  return names;  // sorted: the map orders names case-insensitively
}

std::string credentialScope(std::string_view date, std::string_view region,
                            std::string_view service) {
  std::string scope(date);
  scope += '/';
  scope += region;
  scope += '/';
  scope += service;
  scope += "/aws4_request";
  return scope;
}

// Drops earlier signing headers so a retry can be signed again.
void eraseSigningHeaders(Headers& headers) {
  for (std::string_view name :
       {"authorization", "x-amz-date", "x-amz-security-token", "x-amz-content-sha256"}) {
    headers.erase(std::string(name));
  }
}

struct Prepared {
  std::string amzDate;
  std::string scope;
  std::string payloadHash;
};

core::Result<Prepared> prepare(Request& request, const Credentials& credentials,
                               std::string_view region, std::string_view service,
                               core::TimePoint time) {
  if (request.headers.find("host") == request.headers.end()) {
    return core::fail(core::Error::invalid("sigv4: the request has no Host header"));
  }
  if (credentials.accessKeyId.empty() || credentials.secretAccessKey.empty()) {
    return core::fail(core::Error::invalid("sigv4: empty access key"));
  }
  eraseSigningHeaders(request.headers);
  Prepared prepared;
  prepared.amzDate = formatAmzDate(time);
  prepared.scope =
      credentialScope(std::string_view(prepared.amzDate).substr(0, 8), region, service);
  prepared.payloadHash =
      request.payloadHash.empty() ? sha256Hex(request.body) : request.payloadHash;
  return prepared;
}

}  // namespace

std::string signatureHex(std::string_view secret, std::string_view scope,
                         std::string_view stringToSign) {
  // scope = date/region/service/aws4_request; the signing key chains HMACs over its parts.
  std::string key = "AWS4";
  key += secret;
  Digest current{};
  std::string_view keyView = key;
  std::size_t start = 0;
  for (int part = 0; part < 4; ++part) {
    std::size_t slash = scope.find('/', start);
    current = hmac(keyView, scope.substr(start, slash - start));
    keyView = view(current);
    start = slash + 1;
  }
  return core::hexEncode(view(hmac(keyView, stringToSign)));
}

bool HeaderNameLess::operator()(std::string_view a, std::string_view b) const {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                      [](char x, char y) { return lower(x) < lower(y); });
}

std::string sha256Hex(std::string_view data) {
  return core::sha256Hex(data);
}

std::string formatAmzDate(core::TimePoint time) {
  using namespace std::chrono;
  auto secs = floor<seconds>(time);
  auto day = floor<days>(secs);
  year_month_day ymd{day};
  hh_mm_ss hms{secs - day};
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%04d%02u%02uT%02d%02d%02dZ", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<int>(hms.hours().count()), static_cast<int>(hms.minutes().count()),
                static_cast<int>(hms.seconds().count()));
  return buffer;
}

std::optional<core::TimePoint> parseAmzDate(std::string_view text) {
  using namespace std::chrono;
  if (text.size() != 16 || text[8] != 'T' || text[15] != 'Z') {
    return std::nullopt;
  }
  auto number = [&](std::size_t at, std::size_t size) -> int {
    int value = 0;
    for (std::size_t i = at; i < at + size; ++i) {
      if (text[i] < '0' || text[i] > '9') {
        return -1;
      }
      value = value * 10 + (text[i] - '0');
    }
    return value;
  };
  int y = number(0, 4), mo = number(4, 2), d = number(6, 2);
  int h = number(9, 2), mi = number(11, 2), s = number(13, 2);
  if (y < 0 || mo < 0 || d < 0 || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59) {
    return std::nullopt;
  }
  year_month_day ymd{year(y), month(static_cast<unsigned>(mo)), day(static_cast<unsigned>(d))};
  if (!ymd.ok()) {
    return std::nullopt;
  }
  return time_point_cast<microseconds>(sys_days(ymd) + hours(h) + minutes(mi) + seconds(s));
}

std::string canonicalRequest(const Request& request, const std::vector<std::string>& signedHeaders,
                             std::string_view payloadHash, std::string_view service,
                             bool presigned) {
  std::string out;
  out.reserve(256 + request.query.size());
  out += request.method;
  out += '\n';
  out += canonicalUri(request.path, service);
  out += '\n';
  out += canonicalQuery(request.query, presigned);
  out += '\n';
  for (const auto& name : signedHeaders) {
    out += name;
    out += ':';
    auto [first, last] = request.headers.equal_range(name);
    for (auto it = first; it != last; ++it) {
      if (it != first) {
        out += ',';
      }
      appendHeaderValue(out, it->second);
    }
    out += '\n';
  }
  out += '\n';
  out += fmt::format("{}", fmt::join(signedHeaders, ";"));
  out += '\n';
  out += payloadHash;
  return out;
}

std::string stringToSign(std::string_view amzDate, std::string_view scope,
                         std::string_view canonicalRequest) {
  std::string out(kAlgorithm);
  out += '\n';
  out += amzDate;
  out += '\n';
  out += scope;
  out += '\n';
  out += sha256Hex(canonicalRequest);
  return out;
}

core::Status sign(Request& request, const Credentials& credentials, std::string_view region,
                  std::string_view service, core::TimePoint time) {
  auto prepared = prepare(request, credentials, region, service, time);
  if (!prepared) {
    return core::fail(prepared.error());
  }
  request.headers.emplace("X-Amz-Date", prepared->amzDate);
  if (!credentials.sessionToken.empty()) {
    request.headers.emplace("X-Amz-Security-Token", credentials.sessionToken);
  }
  if (service == "s3") {
    request.headers.emplace("X-Amz-Content-Sha256", prepared->payloadHash);
  }

  std::vector<std::string> signedHeaders = signableHeaders(request.headers);
  std::string sts =
      stringToSign(prepared->amzDate, prepared->scope,
                   canonicalRequest(request, signedHeaders, prepared->payloadHash, service));
  std::string authorization(kAlgorithm);
  authorization += " Credential=" + credentials.accessKeyId + '/' + prepared->scope;
  authorization += ", SignedHeaders=" + fmt::format("{}", fmt::join(signedHeaders, ";"));
  authorization += ", Signature=" + signatureHex(credentials.secretAccessKey, prepared->scope, sts);
  request.headers.emplace("Authorization", std::move(authorization));
  return core::ok();
}

core::Status presign(Request& request, const Credentials& credentials, std::string_view region,
                     std::string_view service, core::TimePoint time, std::chrono::seconds expires) {
  if (expires.count() <= 0 || expires > kMaxPresignExpiry) {
    return core::fail(core::Error::invalid("sigv4: presigned expiry must be within 7 days"));
  }
  auto prepared = prepare(request, credentials, region, service, time);
  if (!prepared) {
    return core::fail(prepared.error());
  }
  // S3 URLs are presigned before the body exists.
  if (service == "s3" && request.payloadHash.empty()) {
    prepared->payloadHash = "UNSIGNED-PAYLOAD";
  }
  std::vector<std::string> signedHeaders = signableHeaders(request.headers);
  ParamPairs auth = {
      {"X-Amz-Algorithm", std::string(kAlgorithm)},
      {"X-Amz-Credential", credentials.accessKeyId + '/' + prepared->scope},
      {"X-Amz-Date", prepared->amzDate},
      {"X-Amz-Expires", std::to_string(expires.count())},
      {"X-Amz-SignedHeaders", fmt::format("{}", fmt::join(signedHeaders, ";"))},
  };
  if (!credentials.sessionToken.empty()) {
    auth.emplace_back("X-Amz-Security-Token", credentials.sessionToken);
  }
  if (!request.query.empty()) {
    request.query += '&';
  }
  request.query += encodeForm(auth);
  std::string sts =
      stringToSign(prepared->amzDate, prepared->scope,
                   canonicalRequest(request, signedHeaders, prepared->payloadHash, service, true));
  request.query +=
      "&X-Amz-Signature=" + signatureHex(credentials.secretAccessKey, prepared->scope, sts);
  return core::ok();
}

}  // namespace nodewright::aws::sigv4
