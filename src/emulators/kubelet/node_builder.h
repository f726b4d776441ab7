#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "api/core/node.h"
#include "api/karpenter/nodeclaim.h"
#include "cloud/cloud_provider.h"
#include "core/time.h"

// The Node a kubelet registers for a machine, as Karpenter's user data configures it.
namespace nodewright::emulators::kubelet {

// The last path segment of a provider ID: "aws:///us-east-1a/i-0abc" -> "i-0abc".
std::string nodeNameOf(std::string_view providerID);

// The Node for `machine`, Ready=False since `now`, tainted karpenter.sh/unregistered. `claim`
// (the owning NodeClaim, when known) adds its labels and, when the machine does not carry them,
// capacity and allocatable. nullopt when neither knows the capacity: a kubelet always reports
// one, so the Node waits for it.
std::optional<api::corev1::Node> nodeFor(const cloud::Machine& machine,
                                         const api::karpenter::NodeClaim* claim,
                                         const std::string& kubeletVersion, core::TimePoint now);

}  // namespace nodewright::emulators::kubelet
