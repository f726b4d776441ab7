#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/core/taint.h"
#include "api/reflect/schema.h"
#include "core/error.h"

// Labels and selectors as apimachinery defines them: label key and value syntax, metav1
// LabelSelector, core/v1 NodeSelectorRequirement (with Karpenter's Gte and Lte), their
// evaluation against a label map, and the string form kubectl -l and ?labelSelector= use.
// Taint and toleration matching (corev1::tolerates) comes with api/core/taint.h.
namespace nodewright::api {

using Labels = std::map<std::string, std::string>;

inline constexpr const char* kOpIn = "In";
inline constexpr const char* kOpNotIn = "NotIn";
inline constexpr const char* kOpExists = "Exists";
inline constexpr const char* kOpDoesNotExist = "DoesNotExist";
inline constexpr const char* kOpGt = "Gt";
inline constexpr const char* kOpLt = "Lt";
inline constexpr const char* kOpGte = "Gte";
inline constexpr const char* kOpLte = "Lte";

// --- Syntax (k8s.io/apimachinery/pkg/util/validation), apimachinery's messages. ---

// IsQualifiedName: [DNS-1123 subdomain prefix '/'] name, the name at most 63 characters of
// [A-Za-z0-9._-] starting and ending alphanumeric. Empty when valid.
std::vector<std::string> qualifiedNameErrors(std::string_view value);
// IsValidLabelValue: empty, or a qualified-name part of at most 63 characters.
std::vector<std::string> labelValueErrors(std::string_view value);
// IsDNS1123Subdomain (at most 253 characters) and IsDNS1123Label (at most 63).
std::vector<std::string> dns1123SubdomainErrors(std::string_view value);
std::vector<std::string> dns1123LabelErrors(std::string_view value);

// ValidateLabelName: one Invalid error per problem, at `path`.
void validateLabelName(std::string_view key, const FieldPath& path, FieldErrors& errors);
// ValidateLabels: keys and values of a label map, all reported at `path` (as upstream does).
void validateLabels(const Labels& labels, const FieldPath& path, FieldErrors& errors);

// --- metav1.LabelSelector ---

struct LabelSelectorRequirement {
  std::string key;
  std::string operator_;  // In, NotIn, Exists, DoesNotExist (parseSelector also gives Gt, Lt)
  std::vector<std::string> values;

  bool operator==(const LabelSelectorRequirement&) const = default;
};
const reflect::StructSchema& describe(reflect::Tag<LabelSelectorRequirement>);

// The requirements are ANDed. An empty selector matches everything; callers that hold an
// optional selector decide what "absent" means (upstream: nothing).
struct LabelSelector {
  Labels matchLabels;
  std::vector<LabelSelectorRequirement> matchExpressions;

  bool empty() const { return matchLabels.empty() && matchExpressions.empty(); }
  bool operator==(const LabelSelector&) const = default;
};
const reflect::StructSchema& describe(reflect::Tag<LabelSelector>);

bool matches(const LabelSelector& selector, const Labels& labels);

// Parses the string form: comma-separated requirements "a=b", "a==b", "a!=b", "a in (x,y)",
// "a notin (x)", "a", "!a", "a>1", "a<1" (labels.Parse). Equality goes to matchLabels unless the
// key is already there; everything else to matchExpressions (values sorted, de-duplicated).
// Invalid with apimachinery's message ("unable to parse requirement: ...") on bad input.
core::Result<LabelSelector> parseSelector(std::string_view text);

// The string form of a selector, requirements sorted by key; parseSelector reads it back.
std::string formatSelector(const LabelSelector& selector);

// --- core/v1 NodeSelectorRequirement ---

struct NodeSelectorRequirement {
  std::string key;
  std::string operator_;  // In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte
  std::vector<std::string> values;

  bool operator==(const NodeSelectorRequirement&) const = default;
};
const reflect::StructSchema& describe(reflect::Tag<NodeSelectorRequirement>);

// Evaluates one requirement. Gt, Lt, Gte and Lte compare base-10 int64 values; a missing label,
// a label value or requirement value that is not an integer, or a value count other than one
// never matches. An unknown operator never matches.
bool matches(std::string_view key, std::string_view op, const std::vector<std::string>& values,
             const Labels& labels);
bool matches(const NodeSelectorRequirement& requirement, const Labels& labels);

// The value-count rules for a requirement's operator, reported under path.values: In and NotIn
// need values, Exists and DoesNotExist forbid them, Gt, Lt, Gte and Lte take exactly one
// integer. Unknown operators are left to the caller (enum or "not a valid selector operator").
void validateRequirementValues(std::string_view op, const std::vector<std::string>& values,
                               const FieldPath& path, FieldErrors& errors);

// strconv.ParseInt(s, 10, 64), as Gt/Lt comparisons read label values: an optional sign and
// decimal digits, in range; nullopt otherwise.
std::optional<int64_t> parseLabelInteger(std::string_view text);

// True for the operators a NodeSelectorRequirement accepts.
bool isNodeSelectorOperator(std::string_view op);

}  // namespace nodewright::api
