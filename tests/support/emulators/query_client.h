#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aws/error.h"
#include "aws/query.h"
#include "aws/sigv4.h"
#include "core/clock.h"
#include "core/error.h"

// A small EC2 Query client for tests over the wire: it signs with SigV4 at the time of an
// injected clock, so an emulator running on a FakeClock accepts its signatures, and it can send
// what no SDK sends (broken escapes, bad signatures, unsigned requests, huge bodies).
namespace nodewright::emulators::testing {

inline constexpr std::string_view kEc2Version = "2016-11-15";

struct WireResponse {
  int status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // lower-case names

  // The EC2 error document's Code and Message; nullopt unless the body has that shape.
  std::optional<aws::ApiError> error() const;
  // The text of the first element `name` anywhere in an XML body ("fleetId"); "" when absent.
  std::string firstText(std::string_view name) const;
  // The texts of the <item>s of every list element `name` ("instanceIds"), in document order.
  std::vector<std::string> itemTexts(std::string_view name) const;
};

// How a request is authenticated.
enum class Signing {
  Valid,
  None,            // no Authorization header at all
  WrongSignature,  // a valid header whose signature has one hex digit changed
};

// A raw request; `target` is the path and query as sent ("/?Action=...").
struct RawRequest {
  std::string method = "POST";
  std::string target = "/";
  std::string body;
  std::string contentType = "application/x-www-form-urlencoded; charset=utf-8";
  std::map<std::string, std::string> headers;
  Signing signing = Signing::Valid;
  // Sent instead of `body` once it is signed: a body changed in transit.
  std::optional<std::string> bodyAfterSigning;
};

// Thread-compatible; `clock` must outlive it. Transport failures are Internal errors; any HTTP
// status is a WireResponse.
class QueryClient {
 public:
  QueryClient(std::string baseUrl, const core::Clock& clock,
              aws::sigv4::Credentials credentials = {"nodewright", "nodewright", ""},
              std::string region = "us-east-1");

  // POST Action=<action>&Version=2016-11-15&<params>, signed.
  core::Result<WireResponse> call(std::string_view action, const aws::ParamPairs& params = {});
  core::Result<WireResponse> send(const RawRequest& request);
  // A signed GET, for /admin/* (the EC2 emulator's admin API takes SigV4 like its API).
  core::Result<WireResponse> get(std::string_view target);
  // A signed request with a JSON body, for PUT /admin/faults.
  core::Result<WireResponse> admin(std::string method, std::string target, std::string json);

  void setCredentials(aws::sigv4::Credentials credentials) {
    credentials_ = std::move(credentials);
  }
  // Signs as if at now() + skew, to test expired signatures.
  void setSigningSkew(std::chrono::seconds skew) { skew_ = skew; }

 private:
  std::string baseUrl_;
  std::string host_;  // "127.0.0.1:PORT", the Host header
  const core::Clock& clock_;
  aws::sigv4::Credentials credentials_;
  std::string region_;
  std::chrono::seconds skew_{0};
};

}  // namespace nodewright::emulators::testing
