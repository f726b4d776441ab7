#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/karpenter/common.h"

// Karpenter's AMI aliases (family@version) as the SSM parameters EKS and Bottlerocket publish
// their images under, with what each image's variant asks of a node. Names as real AWS serves
// them (and the EC2 emulator's world seeds them).
namespace nodewright::cloud::aws::nodeclass {

// Which accelerators an EKS image is built for.
enum class Variant { Standard, Nvidia, Neuron };

struct AliasParameter {
  std::string name;  // "/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/..."
  // An image serves several when one build covers them (AL2's GPU image: NVIDIA and Neuron).
  // Empty for Windows, whose images ask nothing of a node's accelerators.
  std::vector<Variant> variants;
  // Windows: the Server build its nodes run (node.kubernetes.io/windows-build); empty otherwise.
  std::string windowsBuild;
};

struct Alias {
  std::string family;   // "al2023", "al2", "bottlerocket", "windows2019", "windows2022",
                        // "windows2025"
  std::string version;  // "latest", "v20241115", "1.26.2"
};

// nullopt unless `alias` is family@version with both parts non-empty.
std::optional<Alias> parseAlias(std::string_view alias);

// The parameters to read for `alias` on Kubernetes `kubernetesVersion` ("1.32"), in a fixed
// order; nullopt for a family that has none (an unknown one, or a pinned Windows version).
std::optional<std::vector<AliasParameter>> aliasParameters(const Alias& alias,
                                                           const std::string& kubernetesVersion);

// Why Karpenter refuses `alias` on `kubernetesVersion` outright (its AMIsReady reason
// UnsupportedAlias): AL2 on 1.33 and later, Windows Server 2025 before 1.35. nullopt when it
// does not.
std::optional<std::string> unsupportedAlias(const Alias& alias,
                                            const std::string& kubernetesVersion);

// kubernetes.io/arch In [arch] plus the variant's accelerator requirements, and for a Windows
// image (non-empty `windowsBuild`) kubernetes.io/os In [windows] and
// node.kubernetes.io/windows-build In [windowsBuild]; sorted by key.
std::vector<api::karpenter::NodeSelectorRequirement> variantRequirements(
    std::optional<Variant> variant, const std::string& arch, const std::string& windowsBuild = "");

}  // namespace nodewright::cloud::aws::nodeclass
