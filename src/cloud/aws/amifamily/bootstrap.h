#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/karpenter/common.h"
#include "api/karpenter/ec2nodeclass.h"
#include "core/error.h"

// The user data that joins an instance to the cluster, in each AMI family's own format, merged
// with the node class's userData by that format's rules:
//   AL2023        a MIME multi-part document of nodeadm NodeConfig parts; the user's parts
//                 (MIME, or a bare NodeConfig/shell script) come first, ours last, so our
//                 cluster settings win where nodeadm merges.
//   AL2           a MIME multi-part document whose last part runs /etc/eks/bootstrap.sh; the
//                 user's parts come first.
//   Bottlerocket  TOML settings: the user's table, with ours for settings.kubernetes.* laid
//                 over it (cluster name, endpoint, CA, labels, taints, kubelet settings).
//   Custom        the user's userData as it is.
namespace nodewright::cloud::aws {

struct ClusterInfo {
  std::string name;
  std::string endpoint;     // https://...
  std::string caBundle;     // base64 PEM
  std::string serviceCidr;  // "10.100.0.0/16"; nodeadm needs it
};

struct BootstrapOptions {
  ClusterInfo cluster;
  std::string family;  // kFamily* of nodeclass/resolved.h
  // The NodeClaim's labels and taints, registered with the node.
  std::map<std::string, std::string> labels;
  std::vector<api::karpenter::Taint> taints;
  std::optional<api::karpenter::KubeletConfiguration> kubelet;
  std::optional<int32_t> maxPods;  // the type's ENI-limited pods when kubelet.maxPods is unset
  std::optional<std::string> customUserData;  // EC2NodeClass spec.userData
  // spec.instanceStorePolicy RAID0: AL2 and AL2023 put the instance stores in one RAID0 array
  // (bootstrap.sh --local-disks raid0, NodeConfig spec.instance.localStorage.strategy);
  // Bottlerocket runs apiclient ephemeral-storage init and bind as a bootstrap command.
  bool raid0 = false;
  // Bottlerocket's AMI version (bottlerocketVersion): from v1.46.0 on, `ephemeral-storage bind`
  // binds its default directories; before, Karpenter names them.
  std::string bottlerocketVersion{};
};

// The Bottlerocket AMI version a node class launches, as Karpenter v1.14 finds it: an alias's
// version ("latest", "v1.46.0"), else the version in a name term, else in the name of the image an
// ID term selects, else in any resolved image's name; "" when none tells.
// `imageNames` pairs each resolved image's ID with its name.
std::string bottlerocketVersion(const std::vector<api::karpenter::AMISelectorTerm>& terms,
                                const std::vector<std::pair<std::string, std::string>>& imageNames);

// Whether Bottlerocket `version` binds ephemeral storage's default paths (v1.46.0 and later,
// and "latest").
bool supportsDefaultBind(std::string_view version);

// Plain text (callers base64 it for EC2). Invalid, naming spec.userData, when the user's user
// data cannot be merged (malformed MIME or TOML).
core::Result<std::string> bootstrapUserData(const BootstrapOptions& options);

}  // namespace nodewright::cloud::aws
