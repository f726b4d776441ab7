#include "cloud/aws/nodeclass/aliases.h"

#include <algorithm>
#include <cstdio>
#include <string_view>

#include <fmt/format.h>

#include "cloud/aws/nodeclass/windows.h"

namespace nodewright::cloud::aws::nodeclass {
namespace {

constexpr const char* kGpuCount = "karpenter.k8s.aws/instance-gpu-count";
constexpr const char* kAcceleratorCount = "karpenter.k8s.aws/instance-accelerator-count";
constexpr const char* kArch = "kubernetes.io/arch";
constexpr const char* kOs = "kubernetes.io/os";
constexpr const char* kWindowsBuild = "node.kubernetes.io/windows-build";

// The minor version of "1.32"; nullopt when it is not MAJOR.MINOR.
std::optional<int> minorOf(const std::string& kubernetesVersion) {
  int major = 0;
  int minor = 0;
  if (std::sscanf(kubernetesVersion.c_str(), "%d.%d", &major, &minor) != 2) {
    return std::nullopt;
  }
  return minor;
}

// EKS: /aws/service/eks/optimized-ami/<k8s>/amazon-linux-2023/<arch>/<variant>/<leaf>/image_id,
// where the leaf is "recommended" or the image's name for a pinned release.
std::vector<AliasParameter> al2023(const std::string& k8s, const std::string& version) {
  struct Build {
    const char* arch;
    const char* variant;
    Variant v;
  };
  std::vector<AliasParameter> out;
  for (const Build& b :
       {Build{"x86_64", "standard", Variant::Standard}, Build{"x86_64", "nvidia", Variant::Nvidia},
        Build{"x86_64", "neuron", Variant::Neuron}, Build{"arm64", "standard", Variant::Standard},
        Build{"arm64", "nvidia", Variant::Nvidia}}) {
    const std::string leaf = version == "latest" ? std::string("recommended")
                                                 : fmt::format("amazon-eks-node-al2023-{}-{}-{}-{}",
                                                               b.arch, b.variant, k8s, version);
    out.push_back(
        {fmt::format("/aws/service/eks/optimized-ami/{}/amazon-linux-2023/{}/{}/{}/image_id", k8s,
                     b.arch, b.variant, leaf),
         {b.v},
         ""});
  }
  return out;
}

// EKS: /aws/service/eks/optimized-ami/<k8s>/amazon-linux-2[-arm64|-gpu]/<leaf>/image_id. One GPU
// image carries both the NVIDIA and the Neuron drivers.
std::vector<AliasParameter> al2(const std::string& k8s, const std::string& version) {
  struct Build {
    const char* suffix;
    const char* name;
    std::vector<Variant> variants;
  };
  std::vector<AliasParameter> out;
  for (const Build& b :
       {Build{"", "amazon-eks-node", {Variant::Standard}},
        Build{"-arm64", "amazon-eks-arm64-node", {Variant::Standard}},
        Build{"-gpu", "amazon-eks-gpu-node", {Variant::Neuron, Variant::Nvidia}}}) {
    const std::string leaf = version == "latest" ? std::string("recommended")
                                                 : fmt::format("{}-{}-{}", b.name, k8s, version);
    out.push_back({fmt::format("/aws/service/eks/optimized-ami/{}/amazon-linux-2{}/{}/image_id",
                               k8s, b.suffix, leaf),
                   b.variants, ""});
  }
  return out;
}

// Bottlerocket: /aws/service/bottlerocket/aws-k8s-<k8s>[-nvidia]/<arch>/<version>/image_id. Its
// releases are "v1.26.2" on GitHub but "1.26.2" in SSM, so a leading v is dropped. The plain
// x86_64 image also runs Neuron.
std::vector<AliasParameter> bottlerocket(const std::string& k8s, std::string version) {
  if (version != "latest" && version.starts_with('v')) {
    version.erase(0, 1);
  }
  struct Build {
    const char* flavor;
    const char* arch;
    std::vector<Variant> variants;
  };
  std::vector<AliasParameter> out;
  for (const Build& b :
       {Build{"", "x86_64", {Variant::Standard, Variant::Neuron}},
        Build{"", "arm64", {Variant::Standard}}, Build{"-nvidia", "x86_64", {Variant::Nvidia}},
        Build{"-nvidia", "arm64", {Variant::Nvidia}}}) {
    out.push_back({fmt::format("/aws/service/bottlerocket/aws-k8s-{}{}/{}/{}/image_id", k8s,
                               b.flavor, b.arch, version),
                   b.variants, ""});
  }
  return out;
}

}  // namespace

std::optional<Alias> parseAlias(std::string_view alias) {
  const size_t at = alias.find('@');
  if (at == std::string_view::npos || at == 0 || at + 1 >= alias.size()) {
    return std::nullopt;
  }
  Alias out{std::string(alias.substr(0, at)), std::string(alias.substr(at + 1))};
  std::transform(out.family.begin(), out.family.end(), out.family.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::optional<std::vector<AliasParameter>> aliasParameters(const Alias& alias,
                                                           const std::string& kubernetesVersion) {
  if (alias.family == "al2023") {
    return al2023(kubernetesVersion, alias.version);
  }
  if (alias.family == "al2") {
    return al2(kubernetesVersion, alias.version);
  }
  if (alias.family == "bottlerocket") {
    return bottlerocket(kubernetesVersion, alias.version);
  }
  // Windows images are published under their latest name only, and Karpenter pins no
  // Windows version (aws/karpenter-provider-aws v1.14 pkg/providers/amifamily/windows.go).
  for (auto [family, name] :
       {std::pair{"windows2019", kFamilyWindows2019}, std::pair{"windows2022", kFamilyWindows2022},
        std::pair{"windows2025", kFamilyWindows2025}}) {
    if (alias.family != family || alias.version != "latest") {
      continue;
    }
    const std::string year = alias.family.substr(std::string_view("windows").size());
    return std::vector<AliasParameter>{
        {fmt::format("/aws/service/ami-windows-latest/"
                     "Windows_Server-{}-English-Core-EKS_Optimized-{}/image_id",
                     year, kubernetesVersion),
         {},
         *windowsBuild(name)}};
  }
  return std::nullopt;
}

std::optional<std::string> unsupportedAlias(const Alias& alias,
                                            const std::string& kubernetesVersion) {
  const std::optional<int> minor = minorOf(kubernetesVersion);
  if (!minor) {
    return std::nullopt;
  }
  // Karpenter's words (amifamily/ami.go DescribeImageQueries).
  if (alias.family == "al2" && *minor >= 33) {
    return std::string(
        "AL2 aliases are no longer supported on EKS 1.33+ (see "
        "https://docs.aws.amazon.com/eks/latest/userguide/"
        "kubernetes-versions-standard.html#kubernetes-1-33)");
  }
  if (alias.family == "windows2025" && *minor < 35) {
    return fmt::format(
        "Windows Server 2025 requires EKS version 1.35 or higher, current version: {}",
        kubernetesVersion);
  }
  return std::nullopt;
}

std::vector<api::karpenter::NodeSelectorRequirement> variantRequirements(
    std::optional<Variant> variant, const std::string& arch, const std::string& windowsBuild) {
  std::vector<api::karpenter::NodeSelectorRequirement> out;
  if (variant == Variant::Standard) {
    out.push_back({kAcceleratorCount, "DoesNotExist", {}});
    out.push_back({kGpuCount, "DoesNotExist", {}});
  } else if (variant == Variant::Nvidia) {
    out.push_back({kGpuCount, "Exists", {}});
  } else if (variant == Variant::Neuron) {
    out.push_back({kAcceleratorCount, "Exists", {}});
  }
  out.push_back({kArch, "In", {arch}});
  if (!windowsBuild.empty()) {
    out.push_back({kOs, "In", {"windows"}});
    out.push_back({kWindowsBuild, "In", {windowsBuild}});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
  return out;
}

}  // namespace nodewright::cloud::aws::nodeclass
