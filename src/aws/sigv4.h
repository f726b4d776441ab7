#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aws/error.h"
#include "core/error.h"
#include "core/time.h"

// AWS Signature Version 4: signing (the AWS provider) and verifying (the emulators).
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html
namespace nodewright::aws::sigv4 {

struct Credentials {
  std::string accessKeyId;
  std::string secretAccessKey;
  std::string sessionToken;  // empty for long-term keys
};

struct HeaderNameLess {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const;
};
// Header names compare case-insensitively; values of one name keep their arrival order, which
// SigV4 preserves when it joins them with ','.
using Headers = std::multimap<std::string, std::string, HeaderNameLess>;

// An HTTP request as SigV4 sees it.
struct Request {
  std::string method;
  // The request target before '?', as sent on the wire (already percent-encoded). Except for
  // S3 it is normalized and encoded once more for signing, as every AWS SDK does.
  std::string path = "/";
  std::string query;  // after '?', raw
  Headers headers;
  std::string body;
  // Hex SHA-256 of the body, or "UNSIGNED-PAYLOAD"; when empty the body is hashed.
  std::string payloadHash;
};

// Signs with an Authorization header: sets X-Amz-Date, X-Amz-Security-Token when there is a
// session token and, for S3 only, X-Amz-Content-Sha256; replaces any earlier signature, so a
// retried request can be signed again. Signs every header present except hop-by-hop ones and
// User-Agent. Invalid when the request has no Host header.
core::Status sign(Request& request, const Credentials& credentials, std::string_view region,
                  std::string_view service, core::TimePoint time);

// Signs in the query string (a presigned URL valid for `expires`, at most 7 days).
core::Status presign(Request& request, const Credentials& credentials, std::string_view region,
                     std::string_view service, core::TimePoint time, std::chrono::seconds expires);

// Who signed a verified request.
struct Identity {
  std::string accessKeyId;
  std::string sessionToken;  // X-Amz-Security-Token; empty when absent
  core::TimePoint signedAt;
};

// The secret of an access key id; nullopt when the key is unknown. Must be thread-safe if
// verify() runs on several threads.
using SecretLookup = std::function<std::optional<std::string>(std::string_view accessKeyId)>;

struct VerifyOptions {
  std::string region;   // the scope a request must be signed for
  std::string service;  // e.g. "ec2"
  std::chrono::seconds allowedSkew = std::chrono::minutes(15);
};

// Verifies an Authorization header or, without one, a presigned query string. Errors carry the
// code and HTTP status AWS uses:
//   MissingAuthenticationToken (401)  neither is present;
//   IncompleteSignature (400)         malformed authorization, or no X-Amz-Date;
//   SignatureDoesNotMatch (403)       wrong signature, or a scope for another date, region or
//                                     service;
//   AuthFailure (401)                 unknown access key;
//   RequestExpired (400)              signed more than allowedSkew from `now`, or past a
//                                     presigned URL's X-Amz-Expires;
//   XAmzContentSHA256Mismatch (400)   X-Amz-Content-Sha256 is not the body's hash.
ApiResult<Identity> verify(const Request& request, const SecretLookup& lookupSecret,
                           core::TimePoint now, const VerifyOptions& options);

// The pieces of a signature, exposed for tests and for debugging a mismatch.
// `signedHeaders` are lower-case names, sorted.
std::string canonicalRequest(const Request& request, const std::vector<std::string>& signedHeaders,
                             std::string_view payloadHash, std::string_view service,
                             bool presigned = false);
std::string stringToSign(std::string_view amzDate, std::string_view scope,
                         std::string_view canonicalRequest);
// `scope` is "date/region/service/aws4_request".
std::string signatureHex(std::string_view secretAccessKey, std::string_view scope,
                         std::string_view stringToSign);
std::string sha256Hex(std::string_view data);

// "20150830T123600Z"; parse returns nullopt unless exactly that shape and a valid time.
std::string formatAmzDate(core::TimePoint time);
std::optional<core::TimePoint> parseAmzDate(std::string_view text);

}  // namespace nodewright::aws::sigv4
