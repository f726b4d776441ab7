#pragma once

#include <optional>
#include <string>
#include <string_view>

// Karpenter's Windows AMI families (karpenter-provider-aws v1.14 pkg/apis/v1/labels.go and
// pkg/providers/amifamily/windows.go): one per Windows Server release, each with the build
// that nodes of it carry in node.kubernetes.io/windows-build. Kept apart from resolved.h so
// that only the code that tells Windows apart includes it.
namespace nodewright::cloud::aws {

inline constexpr const char* kFamilyWindows2019 = "Windows2019";
inline constexpr const char* kFamilyWindows2022 = "Windows2022";
inline constexpr const char* kFamilyWindows2025 = "Windows2025";

// The Windows Server build of a Windows family ("10.0.20348" for Windows2022); nullopt for
// every other family.
inline std::optional<std::string> windowsBuild(std::string_view family) {
  if (family == kFamilyWindows2019) {
    return "10.0.17763";
  }
  if (family == kFamilyWindows2022) {
    return "10.0.20348";
  }
  if (family == kFamilyWindows2025) {
    return "10.0.26100";
  }
  return std::nullopt;
}

inline bool isWindowsFamily(std::string_view family) {
  return windowsBuild(family).has_value();
}

}  // namespace nodewright::cloud::aws
