#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cloud/aws/amifamily/bootstrap.h"

// One builder per AMI family behind bootstrapUserData, and what they share.
namespace nodewright::cloud::aws::amifamily {

core::Result<std::string> al2023UserData(const BootstrapOptions& options);
core::Result<std::string> al2UserData(const BootstrapOptions& options);
core::Result<std::string> bottlerocketUserData(const BootstrapOptions& options);
// Windows2019, Windows2022, Windows2025: a <powershell> script.
core::Result<std::string> windowsUserData(const BootstrapOptions& options);

// The kubelet flags of EKS's bootstrap scripts (AL2's bootstrap.sh --kubelet-extra-args,
// Windows' Start-EKSBootstrap.ps1 -KubeletExtraArgs), in Karpenter's order.
std::vector<std::string> eksKubeletArgs(const BootstrapOptions& options);

// kubelet.maxPods, else the type's ENI-limited pods; nullopt leaves it to the image.
std::optional<int32_t> effectiveMaxPods(const BootstrapOptions& options);

// Go's %q of a plain string: quoted, with '"' and '\' escaped (Karpenter writes kubelet flags
// so).
std::string goQuote(std::string_view text);

// --node-labels="k=v,..." sorted by key; empty without labels.
std::string nodeLabelsFlag(const BootstrapOptions& options);

// Invalid "spec.userData: <what>".
core::Error userDataError(const std::string& what);

}  // namespace nodewright::cloud::aws::amifamily
