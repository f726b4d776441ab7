#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/reflect/field_errors.h"
#include "api/reflect/int_or_string.h"

// Checks shared by the core/v1, apps/v1 and policy/v1 kinds, with apimachinery's wording
// (k8s.io/apimachinery/pkg/util/validation) so users see the messages kube-apiserver gives.
namespace nodewright::api::corev1 {

// apimachinery's RegexError: "MSG (e.g. 'a',  or 'b', regex used for validation is 'FMT')".
std::string regexError(std::string_view msg, std::string_view fmt,
                       std::initializer_list<std::string_view> examples);
// "must be no more than N characters".
std::string maxLenError(size_t length);
// field.Required / field.Invalid with a detail, which fielderr's builders do not take.
std::string requiredWith(std::string_view detail);
// fielderr::invalid for a text value (std::string arguments are ambiguous there).
std::string invalidText(std::string_view value, std::string_view detail);

// IsConfigMapKey: keys of Secret and ConfigMap data.
std::vector<std::string> configMapKeyErrors(std::string_view key);

// Go's base64.StdEncoding rules (padding required, CR and LF ignored). Returns the decoded
// bytes, or the offset of the first bad input byte as Go's CorruptInputError reports it.
struct Base64Result {
  std::string bytes;
  std::optional<size_t> errorOffset;
};
Base64Result decodeBase64(std::string_view text);
std::string encodeBase64(std::string_view bytes);

// Appends an Unsupported error when `value` is set and not one of `allowed`; empty means
// "left to the server default", which the generic enum check would reject.
void checkOptionalEnum(std::string_view value, const std::vector<std::string>& allowed,
                       const FieldPath& path, FieldErrors& errors);

// ValidatePositiveIntOrPercent, plus IsNotMoreThan100Percent when `atMost100`.
void validateIntOrPercent(const IntOrString& value, const FieldPath& path, FieldErrors& errors,
                          bool atMost100 = true);
// The JSON an IntOrString encodes to, for error messages.
Json intOrStringJson(const IntOrString& value);
// Zero as an absolute number or as "0%"; an absent value counts as zero.
bool isZero(const std::optional<IntOrString>& value);

// The integer a percent string ("25%") stands for, or nullopt when it is not one.
std::optional<int64_t> percentValue(std::string_view text);

}  // namespace nodewright::api::corev1
