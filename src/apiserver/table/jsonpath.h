#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/reflect/json.h"
#include "core/error.h"

// The JSONPath subset of k8s.io/client-go/util/jsonpath that CRD additionalPrinterColumns and
// kubectl use: fields (.a, ['a.b'], ["a"], .a\.b), wildcards (.*, [*]), indexes and slices ([0],
// [-1], [1:3]) and filters on a relative path ([?(@.type=="Ready")] with ==, !=, <, <=, >, >=
// against a string, number or boolean, or [?(@.x)] for existence). Surrounding "{ }" and a
// leading "$" or "@" are optional; a bare leading name ("metadata.name") reads as ".metadata.name".
// Recursive descent (..), unions ([0,1]), slice steps and range templates are rejected.
namespace nodewright::apiserver {

// One parsed step; a path is a sequence of them.
struct JsonPathStep {
  enum class Kind { Field, Wildcard, Index, Slice, Filter };
  Kind kind = Kind::Field;
  std::string name;                // Field
  int64_t index = 0;               // Index; negative counts from the end
  std::optional<int64_t> start;    // Slice; absent means from the beginning
  std::optional<int64_t> end;      // Slice; absent means to the end
  std::vector<JsonPathStep> path;  // Filter: evaluated on each element
  std::string op;                  // Filter: "==", "!=", "<", "<=", ">", ">=", or "" (exists)
  api::Json literal;               // Filter: the right-hand value
};

class JsonPath {
 public:
  // Invalid ("invalid JSONPath ...: why") on a syntax error or an unsupported construct.
  static core::Result<JsonPath> parse(std::string_view text);

  // Every value the path selects, in document order. A missing field, an index out of range or
  // a step applied to the wrong JSON type selects nothing, as kube-apiserver's printer columns
  // do with AllowMissingKeys(true).
  std::vector<api::Json> evaluate(const api::Json& root) const;

  const std::vector<JsonPathStep>& steps() const { return steps_; }

 private:
  std::vector<JsonPathStep> steps_;
};

// parse() then evaluate(): a syntax error is an error, a missing field an empty result.
core::Result<std::vector<api::Json>> evalJsonPath(const api::Json& object, std::string_view path);

}  // namespace nodewright::apiserver
