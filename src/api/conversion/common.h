#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

#include "api/codec.h"
#include "api/karpenter/common.h"
#include "api/seedera/common.h"

// Pieces shared by the seed-era <-> v1 conversions. Conversions are structural: they neither
// default nor validate their output, and they report every field they cannot carry at once,
// as FieldErrors whose paths are those of the object being converted.
namespace nodewright::api::conversion {

// A converted object, or every field that stopped the conversion.
template <class T>
using Converted = tl::expected<T, FieldErrors>;

inline tl::unexpected<FieldErrors> failed(FieldErrors errors) {
  return tl::unexpected<FieldErrors>(std::move(errors));
}

// "karpenter.sh/v1alpha5 Provisioner"-style names for messages.
inline constexpr const char* kV1Alpha5 = "karpenter.sh/v1alpha5";
inline constexpr const char* kV1Alpha1Aws = "karpenter.k8s.aws/v1alpha1";
inline constexpr const char* kV1 = "karpenter.sh/v1";
inline constexpr const char* kV1Aws = "karpenter.k8s.aws/v1";

// "<path>: Forbidden: has no <target> equivalent" for a field that cannot be converted.
FieldError noEquivalent(const FieldPath& path, std::string_view target, std::string_view hint = {});

std::vector<karpenter::Taint> toV1(const std::vector<seedera::Taint>& taints);
std::vector<seedera::Taint> toSeedEra(const std::vector<karpenter::Taint>& taints);

std::vector<karpenter::NodeSelectorRequirementWithMinValues> toV1(
    const std::vector<seedera::NodeSelectorRequirement>& requirements);
// minValues and the operators v1alpha5 lacks (Gte, Lte) are reported under `path`.
std::vector<seedera::NodeSelectorRequirement> toSeedEra(
    const std::vector<karpenter::NodeSelectorRequirementWithMinValues>& requirements,
    const FieldPath& path, FieldErrors& errors);

// containerRuntime has no v1 field and is reported under `path`.
std::optional<karpenter::KubeletConfiguration> toV1(
    const std::optional<seedera::KubeletConfiguration>& kubelet, const FieldPath& path,
    FieldErrors& errors);
// Reserved resources that are not quantities are reported under `path`.
std::optional<seedera::KubeletConfiguration> toSeedEra(
    const std::optional<karpenter::KubeletConfiguration>& kubelet, const FieldPath& path,
    FieldErrors& errors);

// knative conditions -> metav1 conditions. `renames` maps seed-era types to v1 types; the
// severities that metav1 cannot hold are collected in `severities` ({v1 type: severity}).
std::vector<Condition> toV1(const std::vector<seedera::Condition>& conditions,
                            const std::map<std::string, std::string>& renames, Json& severities);
std::vector<seedera::Condition> toSeedEra(const std::vector<Condition>& conditions,
                                          const std::map<std::string, std::string>& renames,
                                          const Json& severities);

// A ttl in whole seconds as a Duration; ttls beyond Duration's range are reported at `path`.
std::optional<core::Duration> secondsToDuration(int64_t seconds, const FieldPath& path,
                                                FieldErrors& errors);
// A Duration as whole seconds; fractions and negative values are reported at `path`.
std::optional<int64_t> durationToSeconds(const core::Duration& d, const FieldPath& path,
                                         FieldErrors& errors);

// Every place where `roundTrip` differs from `original`, as errors saying the field would not
// survive conversion to `target`. The last line of defence against a silent loss.
FieldErrors lostFields(const Json& original, const Json& roundTrip, std::string_view target);

// Verifies that `reverse(converted)` encodes exactly like `original`; returns `converted` or
// the fields that would be lost.
template <class Seed, class V1, class Reverse>
Converted<V1> checkLossless(const Seed& original, V1 converted, Reverse reverse,
                            std::string_view target) {
  Converted<Seed> back = reverse(converted);
  if (!back) {
    return failed(std::move(back.error()));
  }
  // TypeMeta is the conversion's own output, not the caller's data.
  Json before = toJson(original);
  Json after = toJson(*back);
  for (const char* key : {"apiVersion", "kind"}) {
    before.erase(key);
    after.erase(key);
  }
  FieldErrors lost = lostFields(before, after, target);
  if (!lost.empty()) {
    return failed(std::move(lost));
  }
  return converted;
}

}  // namespace nodewright::api::conversion
