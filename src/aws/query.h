#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "aws/error.h"

// The AWS Query protocol's parameters (EC2 Version 2016-11-15): form encoding, and the flattened
// names EC2 uses for lists and structures, e.g. Filter.1.Value.2 or
// TagSpecification.1.Tag.2.Key.
namespace nodewright::aws {

// Percent-encodes every byte outside RFC 3986's unreserved set (A-Z a-z 0-9 - _ . ~), with
// upper-case hex, as SigV4 requires; '/' is kept when keepSlash (URI paths).
std::string uriEncode(std::string_view text, bool keepSlash = false);

// Decodes %XX escapes, and '+' as a space when plusIsSpace (form bodies). nullopt when a '%' is
// not followed by two hex digits.
std::optional<std::string> uriDecode(std::string_view text, bool plusIsSpace);

using ParamPairs = std::vector<std::pair<std::string, std::string>>;

// Splits an application/x-www-form-urlencoded body (or a query string) into decoded pairs, in
// order. Empty pieces ("a=1&&b=2") are skipped; a name without '=' has an empty value.
// MalformedQueryString on a broken escape.
ApiResult<ParamPairs> parseForm(std::string_view form);

// The inverse of parseForm for request bodies: name=value pairs joined by '&', each side
// uriEncode()d (a space becomes %20, never '+').
std::string encodeForm(const ParamPairs& pairs);

// A read-only view of request parameters under a name prefix ("" at the root,
// "Filter.2." for the second filter). Views share the parameters, so they stay valid after the
// root is gone. Cheap to copy. Thread-compatible.
//
// List members are 1-based ("InstanceId.1"); their order on the wire does not matter and gaps
// are allowed, as with EC2: list() and strings() return members in index order. An index that is
// not a positive decimal number without leading zeros is an InvalidParameterValue error.
class Params {
 public:
  Params();

  // Duplicate names are an InvalidParameter error: EC2 clients never send them, and taking
  // either value silently would hide a client bug.
  static ApiResult<Params> fromPairs(ParamPairs pairs);
  static ApiResult<Params> parse(std::string_view form);

  // The full parameter name of `name` in this view, e.g. "Filter.1.Name", for messages.
  std::string path(std::string_view name) const;
  const std::string& prefix() const { return prefix_; }

  std::optional<std::string_view> find(std::string_view name) const;
  // True when `name` has a value or any member below it (name.*).
  bool has(std::string_view name) const;

  // MissingParameter when absent.
  ApiResult<std::string> str(std::string_view name) const;
  std::string strOr(std::string_view name, std::string_view fallback) const;
  // InvalidParameterValue ("Invalid value 'x' for Foo.1.Bar") unless a decimal integer.
  ApiResult<std::int64_t> integer(std::string_view name) const;
  ApiResult<std::optional<std::int64_t>> optInteger(std::string_view name) const;
  // "true" or "false" (any case), as AWS's Query deserializers accept.
  ApiResult<std::optional<bool>> optBoolean(std::string_view name) const;

  // The members name.N of a list of structures, as views of "name.N.", in index order.
  ApiResult<std::vector<Params>> list(std::string_view name) const;
  // The values name.N of a list of strings, in index order; deeper names (name.N.x) are not
  // members and are ignored.
  ApiResult<std::vector<std::string>> strings(std::string_view name) const;
  // The view of a nested structure, e.g. sub("LaunchTemplateData").
  Params sub(std::string_view name) const;

  // All full names in this view, sorted; lets a handler reject parameters it does not know.
  std::vector<std::string_view> names() const;

 private:
  using Map = std::map<std::string, std::string, std::less<>>;
  struct Index {
    std::uint64_t value;
    std::string text;
  };

  Params(std::shared_ptr<const Map> map, std::string prefix)
      : map_(std::move(map)), prefix_(std::move(prefix)) {}
  // Distinct indices N of names "<full>.N" and "<full>.N.*", ascending.
  ApiResult<std::vector<Index>> indices(const std::string& full) const;

  std::shared_ptr<const Map> map_;
  std::string prefix_;
};

}  // namespace nodewright::aws
