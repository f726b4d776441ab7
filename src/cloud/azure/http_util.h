#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/time.h"

// Small pieces of HTTP the ARM client and the credentials share.
namespace nodewright::cloud::azure {

// A Retry-After value: delta-seconds ("120") or an HTTP-date ("Wed, 21 Oct 2015 07:28:00 GMT",
// RFC 9110 IMF-fixdate; the obsolete RFC 850 and asctime forms too), as a wait from `now`. A
// date in the past is a zero wait. nullopt when the value is neither.
std::optional<std::chrono::milliseconds> parseRetryAfter(std::string_view value,
                                                         core::TimePoint now);

// The wait a response asks for, as the Azure SDKs read it: retry-after-ms, then
// x-ms-retry-after-ms (milliseconds), then Retry-After. `headers` has lower-case names.
std::optional<std::chrono::milliseconds> retryAfterFromHeaders(
    const std::map<std::string, std::string>& headers, core::TimePoint now);

// RFC 3986 percent-encoding of everything but the unreserved characters, for query values and
// form fields.
std::string percentEncode(std::string_view value);

// "scheme://host:port" of an absolute http(s) URL, lower-cased, with the default port made
// explicit, so two spellings of one origin compare equal. nullopt when `url` is not absolute.
std::optional<std::string> urlOrigin(std::string_view url);

// Whether `url` is an absolute http(s) URL (urlOrigin) of visible ASCII only: no whitespace,
// control characters or raw non-ASCII bytes, which curl refuses (forever, for a stored token)
// or which would split a request line.
bool plainUrl(std::string_view url);

// Whether `text` is well-formed UTF-8 (what a JSON string must be).
bool validUtf8(std::string_view text);

// `url` with "api-version=<version>" added to its query.
std::string withApiVersion(const std::string& url, std::string_view version);

}  // namespace nodewright::cloud::azure
