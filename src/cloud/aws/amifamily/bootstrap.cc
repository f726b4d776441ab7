#include "cloud/aws/amifamily/bootstrap.h"

#include <fmt/format.h>

#include "cloud/aws/amifamily/families.h"
#include "cloud/aws/nodeclass/resolved.h"
#include "cloud/aws/nodeclass/windows.h"

namespace nodewright::cloud::aws {

core::Result<std::string> bootstrapUserData(const BootstrapOptions& options) {
  if (options.family == kFamilyAL2023) {
    return amifamily::al2023UserData(options);
  }
  if (options.family == kFamilyAL2) {
    return amifamily::al2UserData(options);
  }
  if (options.family == kFamilyBottlerocket) {
    return amifamily::bottlerocketUserData(options);
  }
  if (isWindowsFamily(options.family)) {
    return amifamily::windowsUserData(options);
  }
  if (options.family == kFamilyCustom) {
    // The user's image joins the cluster by the user's own user data.
    return options.customUserData.value_or("");
  }
  return core::fail(core::Error::invalid(
      fmt::format("spec.amiFamily: nodewright cannot write user data for {}", options.family)));
}

namespace amifamily {

std::optional<int32_t> effectiveMaxPods(const BootstrapOptions& options) {
  if (options.kubelet && options.kubelet->maxPods) {
    return options.kubelet->maxPods;
  }
  return options.maxPods;
}

std::string goQuote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
    }
    out += c;
  }
  return out + "\"";
}

std::string nodeLabelsFlag(const BootstrapOptions& options) {
  if (options.labels.empty()) {
    return "";
  }
  std::vector<std::string> pairs;
  for (const auto& [key, value] : options.labels) {  // a std::map: sorted
    pairs.push_back(key + "=" + value);
  }
  return "--node-labels=" + goQuote(fmt::format("{}", fmt::join(pairs, ",")));
}

core::Error userDataError(const std::string& what) {
  return core::Error::invalid("spec.userData: " + what);
}

}  // namespace amifamily
}  // namespace nodewright::cloud::aws
