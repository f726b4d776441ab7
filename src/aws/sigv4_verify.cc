// The verifying half of aws/sigv4.h: what an AWS endpoint checks, with AWS's error codes.
#include <openssl/crypto.h>

#include <algorithm>
#include <charconv>

#include "aws/query.h"
#include "aws/sigv4.h"

namespace nodewright::aws::sigv4 {
namespace {

constexpr std::string_view kAlgorithm = "AWS4-HMAC-SHA256";
constexpr std::int64_t kMaxPresignExpirySeconds = 7 * 24 * 3600;
constexpr std::string_view kMismatch =
    "The request signature we calculated does not match the signature you provided. Check your "
    "AWS Secret Access Key and signing method. Consult the service documentation for details.";

ApiError incomplete(std::string message) {
  return {"IncompleteSignature", std::move(message), 400};
}
ApiError mismatch(std::string message) {
  return {"SignatureDoesNotMatch", std::move(message), 403};
}
ApiError expired(std::string message) {
  return {"RequestExpired", std::move(message), 400};
}

// What the Authorization header or the presigned query says, before any check.
struct Claims {
  std::string credential;  // keyid/date/region/service/aws4_request
  std::string signedHeaders;
  std::string signature;
  std::string amzDate;
  std::string sessionToken;
  std::int64_t expiresSeconds = 0;  // presigned only
  bool presigned = false;
};

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
    text.remove_prefix(1);
  }
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) {
    text.remove_suffix(1);
  }
  return text;
}

std::optional<std::string_view> firstHeader(const Headers& headers, std::string_view name) {
  auto it = headers.find(name);
  if (it == headers.end()) {
    return std::nullopt;
  }
  return std::string_view(it->second);
}

// Query parameters decoded leniently ('+' stays '+', as SigV4 signers encode it).
ParamPairs decodeQuery(std::string_view query) {
  ParamPairs pairs;
  while (!query.empty()) {
    std::size_t amp = query.find('&');
    std::string_view piece = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    std::size_t eq = piece.find('=');
    auto name = uriDecode(piece.substr(0, eq), false);
    auto value = uriDecode(eq == std::string_view::npos ? "" : piece.substr(eq + 1), false);
    if (name && value) {
      pairs.emplace_back(std::move(*name), std::move(*value));
    }
  }
  return pairs;
}

ApiResult<Claims> fromHeader(std::string_view authorization, const Headers& headers) {
  if (authorization.substr(0, kAlgorithm.size()) != kAlgorithm ||
      authorization.size() == kAlgorithm.size() || authorization[kAlgorithm.size()] != ' ') {
    return tl::unexpected(incomplete("Unsupported Authorization Type"));
  }
  Claims claims;
  std::string_view rest = authorization.substr(kAlgorithm.size() + 1);
  while (!rest.empty()) {
    std::size_t comma = rest.find(',');
    std::string_view part = trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    std::size_t eq = part.find('=');
    if (eq == std::string_view::npos) {
      continue;
    }
    std::string_view key = part.substr(0, eq);
    std::string value(part.substr(eq + 1));
    if (key == "Credential") {
      claims.credential = std::move(value);
    }
    if (key == "SignedHeaders") {
      claims.signedHeaders = std::move(value);
    }
    if (key == "Signature") {
      claims.signature = std::move(value);
    }
  }
  std::string missing;
  for (auto [name, value] :
       {std::pair{"Credential", &claims.credential}, std::pair{"Signature", &claims.signature},
        std::pair{"SignedHeaders", &claims.signedHeaders}}) {
    if (value->empty()) {
      missing += "Authorization header requires '" + std::string(name) + "' parameter. ";
    }
  }
  if (auto date = firstHeader(headers, "x-amz-date")) {
    claims.amzDate = *date;
  }
  if (claims.amzDate.empty()) {
    missing +=
        "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.";
  }
  if (!missing.empty()) {
    return tl::unexpected(incomplete(std::string(trim(missing))));
  }
  if (auto token = firstHeader(headers, "x-amz-security-token")) {
    claims.sessionToken = *token;
  }
  return claims;
}

ApiResult<Claims> fromQuery(const ParamPairs& params) {
  Claims claims;
  claims.presigned = true;
  std::string algorithm, expires;
  for (const auto& [name, value] : params) {
    std::string* field = name == "X-Amz-Algorithm"        ? &algorithm
                         : name == "X-Amz-Credential"     ? &claims.credential
                         : name == "X-Amz-SignedHeaders"  ? &claims.signedHeaders
                         : name == "X-Amz-Signature"      ? &claims.signature
                         : name == "X-Amz-Date"           ? &claims.amzDate
                         : name == "X-Amz-Expires"        ? &expires
                         : name == "X-Amz-Security-Token" ? &claims.sessionToken
                                                          : nullptr;
    if (field && field->empty()) {
      *field = value;
    }
  }
  if (algorithm.empty() || claims.credential.empty() || claims.signature.empty() ||
      claims.amzDate.empty() || claims.signedHeaders.empty() || expires.empty()) {
    return tl::unexpected(incomplete(
        "Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, "
        "X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters."));
  }
  if (algorithm != kAlgorithm) {
    return tl::unexpected(incomplete("Unsupported X-Amz-Algorithm '" + algorithm + "'"));
  }
  auto [end, ec] =
      std::from_chars(expires.data(), expires.data() + expires.size(), claims.expiresSeconds);
  if (ec != std::errc() || end != expires.data() + expires.size() || claims.expiresSeconds <= 0 ||
      claims.expiresSeconds > kMaxPresignExpirySeconds) {
    return tl::unexpected(incomplete("X-Amz-Expires must be a number of seconds from 1 to 604800"));
  }
  return claims;
}

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t at = text.find(separator, start);
    parts.emplace_back(text.substr(start, at == std::string_view::npos ? at : at - start));
    if (at == std::string_view::npos) {
      return parts;
    }
    start = at + 1;
  }
}

// The Authorization header wins; without one, a query with SigV4 parameters is presigned.
ApiResult<Claims> readClaims(const Request& request) {
  if (auto authorization = firstHeader(request.headers, "authorization")) {
    return fromHeader(*authorization, request.headers);
  }
  ParamPairs params = decodeQuery(request.query);
  bool presigned = std::any_of(params.begin(), params.end(), [](const auto& param) {
    return param.first == "X-Amz-Algorithm" || param.first == "X-Amz-Credential" ||
           param.first == "X-Amz-Signature";
  });
  if (!presigned) {
    return apiFail("MissingAuthenticationToken",
                   "The request must contain either a valid (registered) AWS access key ID or "
                   "X.509 certificate.",
                   401);
  }
  return fromQuery(params);
}

// Credential=keyid/date/region/service/aws4_request, checked against the request and options.
struct Scope {
  std::string keyId;
  std::string service;
  std::string credentialScope;  // everything after keyid/
};

ApiResult<Scope> checkScope(const Claims& claims, const VerifyOptions& options) {
  std::vector<std::string> parts = split(claims.credential, '/');
  if (parts.size() != 5 || parts[0].empty()) {
    return tl::unexpected(
        incomplete("Credential must have exactly 5 slash-delimited elements, e.g. "
                   "keyid/date/region/service/term, got '" +
                   claims.credential + "'"));
  }
  const std::string& date = parts[1];
  const std::string& region = parts[2];
  const std::string& service = parts[3];
  if (parts[4] != "aws4_request") {
    return tl::unexpected(
        mismatch("Credential should be scoped with a valid terminator: 'aws4_request', not '" +
                 parts[4] + "'."));
  }
  std::string_view requestDate = std::string_view(claims.amzDate).substr(0, 8);
  if (date != requestDate) {
    return tl::unexpected(mismatch(
        "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from "
        "HTTP: '" +
        date + "' != '" + std::string(requestDate) + "', from '" + claims.amzDate + "'."));
  }
  if (!options.region.empty() && region != options.region) {
    return tl::unexpected(
        mismatch("Credential should be scoped to a valid region, not '" + region + "'."));
  }
  if (!options.service.empty() && service != options.service) {
    return tl::unexpected(
        mismatch("Credential should be scoped to correct service: '" + options.service + "'."));
  }
  return Scope{parts[0], service, claims.credential.substr(parts[0].size() + 1)};
}

std::optional<ApiError> checkTime(const Claims& claims, core::TimePoint signedAt,
                                  core::TimePoint now, const VerifyOptions& options) {
  if (signedAt - now > options.allowedSkew) {
    return expired("Request is not yet valid: it is dated more than " +
                   std::to_string(options.allowedSkew.count()) + " seconds in the future.");
  }
  auto lifetime =
      claims.presigned ? std::chrono::seconds(claims.expiresSeconds) : options.allowedSkew;
  if (now - signedAt > lifetime) {
    return expired("Request has expired.");
  }
  return std::nullopt;
}

// The hash the client signed: X-Amz-Content-Sha256 when sent (S3 style; then it must be the
// body's), else the body's own.
ApiResult<std::string> payloadHash(const Request& request, const Claims& claims,
                                   std::string_view service) {
  if (auto declared = firstHeader(request.headers, "x-amz-content-sha256")) {
    if (*declared != "UNSIGNED-PAYLOAD" && request.payloadHash.empty() &&
        *declared != sha256Hex(request.body)) {
      return apiFail("XAmzContentSHA256Mismatch",
                     "The provided 'x-amz-content-sha256' header does not match what was "
                     "computed.");
    }
    return std::string(*declared);
  }
  if (!request.payloadHash.empty()) {
    return request.payloadHash;
  }
  if (claims.presigned && service == "s3") {
    return std::string("UNSIGNED-PAYLOAD");
  }
  return sha256Hex(request.body);
}

}  // namespace

ApiResult<Identity> verify(const Request& request, const SecretLookup& lookupSecret,
                           core::TimePoint now, const VerifyOptions& options) {
  auto claims = readClaims(request);
  if (!claims) {
    return tl::unexpected(claims.error());
  }
  std::vector<std::string> signedHeaders = split(claims->signedHeaders, ';');
  if (std::find(signedHeaders.begin(), signedHeaders.end(), "host") == signedHeaders.end()) {
    return tl::unexpected(incomplete("'Host' must be a 'SignedHeader' in the AWS Authorization."));
  }
  auto signedAt = parseAmzDate(claims->amzDate);
  if (!signedAt) {
    return tl::unexpected(
        incomplete("Date must be in ISO-8601 'basic format'. Got '" + claims->amzDate + "'."));
  }
  auto scope = checkScope(*claims, options);
  if (!scope) {
    return tl::unexpected(scope.error());
  }

  std::optional<std::string> secret = lookupSecret(scope->keyId);
  if (!secret) {
    return apiFail("AuthFailure", "AWS was not able to validate the provided access credentials",
                   401);
  }
  if (auto error = checkTime(*claims, *signedAt, now, options)) {
    return tl::unexpected(*error);
  }
  auto payload = payloadHash(request, *claims, scope->service);
  if (!payload) {
    return tl::unexpected(payload.error());
  }

  std::string expected = signatureHex(
      *secret, scope->credentialScope,
      stringToSign(
          claims->amzDate, scope->credentialScope,
          canonicalRequest(request, signedHeaders, *payload, scope->service, claims->presigned)));
  // Constant time, so response timing does not reveal how much of a guess was right.
  if (expected.size() != claims->signature.size() ||
      CRYPTO_memcmp(expected.data(), claims->signature.data(), expected.size()) != 0) {
    return tl::unexpected(mismatch(std::string(kMismatch)));
  }
  return Identity{scope->keyId, claims->sessionToken, *signedAt};
}

}  // namespace nodewright::aws::sigv4
