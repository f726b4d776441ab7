#include "api/labels.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <set>

#include "api/core/validation.h"

namespace nodewright::api {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

namespace {

constexpr size_t kQualifiedNameMaxLength = 63;
constexpr size_t kLabelValueMaxLength = 63;
constexpr size_t kDns1123LabelMaxLength = 63;
constexpr size_t kDns1123SubdomainMaxLength = 253;

constexpr std::string_view kQualifiedNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kQualifiedNameErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";
constexpr std::string_view kLabelValueFmt = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr std::string_view kLabelValueErrMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character";
constexpr std::string_view kDns1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kDns1123LabelErrMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character";
constexpr std::string_view kDns1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr std::string_view kDns1123SubdomainErrMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character";

bool isAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool isLowerAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
bool isQualifiedNamePart(std::string_view s) {
  return !s.empty() && isAlnum(s.front()) && isAlnum(s.back()) &&
         std::all_of(s.begin(), s.end(),
                     [](char c) { return isAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

// [a-z0-9]([-a-z0-9]*[a-z0-9])?
bool isDns1123Label(std::string_view s) {
  return !s.empty() && isLowerAlnum(s.front()) && isLowerAlnum(s.back()) &&
         std::all_of(s.begin(), s.end(), [](char c) { return isLowerAlnum(c) || c == '-'; });
}

bool isDns1123Subdomain(std::string_view s) {
  while (true) {
    size_t dot = s.find('.');
    if (!isDns1123Label(s.substr(0, dot))) {
      return false;
    }
    if (dot == std::string_view::npos) {
      return true;
    }
    s.remove_prefix(dot + 1);
  }
}

std::string qualifiedNameRegexError() {
  return corev1::regexError(kQualifiedNameErrMsg, kQualifiedNameFmt,
                            {"MyName", "my.name", "123-abc"});
}

bool contains(const std::vector<std::string>& values, std::string_view v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

void validateLabelSelectorRequirement(const LabelSelectorRequirement& r, const FieldPath& path,
                                      FieldErrors& errors) {
  const std::string& op = r.operator_;
  if (op == kOpIn || op == kOpNotIn || op == kOpExists || op == kOpDoesNotExist) {
    validateRequirementValues(op, r.values, path, errors);
  } else {
    errors.push_back(
        {path.child("operator").str(), corev1::invalidText(op, "not a valid selector operator")});
  }
  validateLabelName(r.key, path.child("key"), errors);
  for (size_t i = 0; i < r.values.size(); ++i) {
    for (const std::string& msg : labelValueErrors(r.values[i])) {
      errors.push_back(
          {path.child("values").index(i).str(), corev1::invalidText(r.values[i], msg)});
    }
  }
}

void validateNodeSelectorRequirement(const NodeSelectorRequirement& r, const FieldPath& path,
                                     FieldErrors& errors) {
  if (isNodeSelectorOperator(r.operator_)) {
    validateRequirementValues(r.operator_, r.values, path, errors);
  } else {
    errors.push_back({path.child("operator").str(),
                      corev1::invalidText(r.operator_, "not a valid selector operator")});
  }
  validateLabelName(r.key, path.child("key"), errors);
}

}  // namespace

// --- Syntax ---

std::vector<std::string> dns1123LabelErrors(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDns1123LabelMaxLength) {
    errs.push_back(corev1::maxLenError(kDns1123LabelMaxLength));
  }
  if (!isDns1123Label(value)) {
    errs.push_back(
        corev1::regexError(kDns1123LabelErrMsg, kDns1123LabelFmt, {"my-name", "123-abc"}));
  }
  return errs;
}

std::vector<std::string> dns1123SubdomainErrors(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDns1123SubdomainMaxLength) {
    errs.push_back(corev1::maxLenError(kDns1123SubdomainMaxLength));
  }
  if (!isDns1123Subdomain(value)) {
    errs.push_back(
        corev1::regexError(kDns1123SubdomainErrMsg, kDns1123SubdomainFmt, {"example.com"}));
  }
  return errs;
}

std::vector<std::string> qualifiedNameErrors(std::string_view value) {
  std::vector<std::string> errs;
  std::string_view name = value;
  size_t slash = value.find('/');
  if (slash != std::string_view::npos) {
    if (value.find('/', slash + 1) != std::string_view::npos) {
      errs.push_back("a qualified name " + qualifiedNameRegexError() +
                     " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
      return errs;
    }
    std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      errs.emplace_back("prefix part must be non-empty");
    } else {
      for (const std::string& msg : dns1123SubdomainErrors(prefix)) {
        errs.push_back("prefix part " + msg);
      }
    }
  }
  // As upstream, an empty name gets both the emptiness and the syntax message.
  if (name.empty()) {
    errs.emplace_back("name part must be non-empty");
  } else if (name.size() > kQualifiedNameMaxLength) {
    errs.push_back("name part " + corev1::maxLenError(kQualifiedNameMaxLength));
  }
  if (!isQualifiedNamePart(name)) {
    errs.push_back("name part " + qualifiedNameRegexError());
  }
  return errs;
}

std::vector<std::string> labelValueErrors(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kLabelValueMaxLength) {
    errs.push_back(corev1::maxLenError(kLabelValueMaxLength));
  }
  if (!value.empty() && !isQualifiedNamePart(value)) {
    errs.push_back(
        corev1::regexError(kLabelValueErrMsg, kLabelValueFmt, {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

void validateLabelName(std::string_view key, const FieldPath& path, FieldErrors& errors) {
  for (const std::string& msg : qualifiedNameErrors(key)) {
    errors.push_back({path.str(), corev1::invalidText(key, msg)});
  }
}

void validateLabels(const Labels& labels, const FieldPath& path, FieldErrors& errors) {
  for (const auto& [key, value] : labels) {
    validateLabelName(key, path, errors);
    for (const std::string& msg : labelValueErrors(value)) {
      errors.push_back({path.str(), corev1::invalidText(value, msg)});
    }
  }
}

// --- Schemas ---

const StructSchema& describe(Tag<LabelSelectorRequirement>) {
  static const StructSchema s =
      StructBuilder<LabelSelectorRequirement>(
          "LabelSelectorRequirement", "A selector requirement: a key, an operator and values.")
          .field<&LabelSelectorRequirement::key>("key",
                                                 "The label key that the selector applies to.")
          .field<&LabelSelectorRequirement::operator_>(
              "operator",
              "The key's relationship to the values: In, NotIn, Exists or DoesNotExist.")
          .field<&LabelSelectorRequirement::values>(
              "values",
              "String values: non-empty for In and NotIn, empty for Exists and DoesNotExist.")
          .validate(validateLabelSelectorRequirement)
          .build();
  return s;
}

const StructSchema& describe(Tag<LabelSelector>) {
  static const StructSchema s =
      StructBuilder<LabelSelector>("LabelSelector",
                                   "A label query over a set of resources; the requirements are "
                                   "ANDed and an empty selector matches everything.")
          .field<&LabelSelector::matchLabels>(
              "matchLabels", "Labels that must be present with these values (each is an In).")
          .field<&LabelSelector::matchExpressions>("matchExpressions",
                                                   "Label selector requirements.")
          .validate([](const LabelSelector& sel, const FieldPath& path, FieldErrors& errors) {
            validateLabels(sel.matchLabels, path.child("matchLabels"), errors);
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<NodeSelectorRequirement>) {
  static const StructSchema s =
      StructBuilder<NodeSelectorRequirement>(
          "NodeSelectorRequirement", "A node selector requirement: a key, an operator and values.")
          .field<&NodeSelectorRequirement::key>("key",
                                                "The label key that the selector applies to.")
          .field<&NodeSelectorRequirement::operator_>(
              "operator",
              "The key's relationship to the values: In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte "
              "or Lte.")
          .field<&NodeSelectorRequirement::values>(
              "values",
              "String values: non-empty for In and NotIn, empty for Exists and DoesNotExist, one "
              "integer for Gt, Lt, Gte and Lte.")
          .validate(validateNodeSelectorRequirement)
          .build();
  return s;
}

// --- Evaluation ---

std::optional<int64_t> parseLabelInteger(std::string_view s) {
  if (!s.empty() && s.front() == '+') {
    s.remove_prefix(1);
    if (!s.empty() && s.front() == '-') {
      return std::nullopt;
    }
  }
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) {
    return std::nullopt;
  }
  return v;
}

bool isNodeSelectorOperator(std::string_view op) {
  return op == kOpIn || op == kOpNotIn || op == kOpExists || op == kOpDoesNotExist || op == kOpGt ||
         op == kOpLt || op == kOpGte || op == kOpLte;
}

bool matches(std::string_view key, std::string_view op, const std::vector<std::string>& values,
             const Labels& labels) {
  auto it = labels.find(std::string(key));
  bool has = it != labels.end();
  if (op == kOpIn) {
    return has && contains(values, it->second);
  }
  if (op == kOpNotIn) {
    return !has || !contains(values, it->second);
  }
  if (op == kOpExists) {
    return has;
  }
  if (op == kOpDoesNotExist) {
    return !has;
  }
  if (op != kOpGt && op != kOpLt && op != kOpGte && op != kOpLte) {
    return false;
  }
  if (!has || values.size() != 1) {
    return false;
  }
  std::optional<int64_t> actual = parseLabelInteger(it->second);
  std::optional<int64_t> bound = parseLabelInteger(values[0]);
  if (!actual || !bound) {
    return false;
  }
  if (op == kOpGt) {
    return *actual > *bound;
  }
  if (op == kOpLt) {
    return *actual < *bound;
  }
  if (op == kOpGte) {
    return *actual >= *bound;
  }
  return *actual <= *bound;
}

bool matches(const NodeSelectorRequirement& requirement, const Labels& labels) {
  return matches(requirement.key, requirement.operator_, requirement.values, labels);
}

bool matches(const LabelSelector& selector, const Labels& labels) {
  for (const auto& [key, value] : selector.matchLabels) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) {
      return false;
    }
  }
  for (const LabelSelectorRequirement& r : selector.matchExpressions) {
    if (!matches(r.key, r.operator_, r.values, labels)) {
      return false;
    }
  }
  return true;
}

void validateRequirementValues(std::string_view op, const std::vector<std::string>& values,
                               const FieldPath& path, FieldErrors& errors) {
  const FieldPath valuesPath = path.child("values");
  auto requireSingleInteger = [&](std::string_view detail) {
    if (values.size() != 1) {
      errors.push_back({valuesPath.str(), corev1::requiredWith(detail)});
    } else if (!parseLabelInteger(values[0])) {
      errors.push_back(
          {valuesPath.index(0).str(), corev1::invalidText(values[0], "must be an integer")});
    }
  };
  if (op == kOpIn || op == kOpNotIn) {
    if (values.empty()) {
      errors.push_back(
          {valuesPath.str(),
           corev1::requiredWith("must be specified when `operator` is 'In' or 'NotIn'")});
    }
  } else if (op == kOpExists || op == kOpDoesNotExist) {
    if (!values.empty()) {
      errors.push_back({valuesPath.str(),
                        fielderr::forbidden(
                            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")});
    }
  } else if (op == kOpGt || op == kOpLt) {
    requireSingleInteger("must be specified single value when `operator` is 'Lt' or 'Gt'");
  } else if (op == kOpGte || op == kOpLte) {
    requireSingleInteger("must be specified single value when `operator` is 'Lte' or 'Gte'");
  }
}

}  // namespace nodewright::api
