// AL2: a MIME archive of shell scripts that cloud-init runs in order; the user's first, then
// ours, which runs /etc/eks/bootstrap.sh with the cluster and kubelet settings.
#include <fmt/format.h>

#include "cloud/aws/amifamily/families.h"
#include "cloud/aws/amifamily/mime.h"

namespace nodewright::cloud::aws::amifamily {
namespace {

// --name="k1<sep>v1,k2<sep>v2" over a sorted map; empty when it is.
template <class Map, class Show>
std::string joinedFlag(const char* name, const Map& values, const char* separator, Show show) {
  if (values.empty()) {
    return "";
  }
  std::vector<std::string> pairs;
  for (const auto& [key, value] : values) {
    pairs.push_back(fmt::format("{}{}{}", key, separator, show(value)));
  }
  return fmt::format("{}={}", name, goQuote(fmt::format("{}", fmt::join(pairs, ","))));
}

// Karpenter's --kubelet-extra-args, in its order.
std::vector<std::string> kubeletArgs(const BootstrapOptions& o) {
  std::vector<std::string> args;
  auto add = [&](std::string arg) {
    if (!arg.empty()) {
      args.push_back(std::move(arg));
    }
  };
  add(nodeLabelsFlag(o));
  if (!o.taints.empty()) {
    std::vector<std::string> taints;
    for (const api::karpenter::Taint& t : o.taints) {
      // core/v1 Taint.ToString(): no "=" without a value.
      taints.push_back(t.value.empty() ? fmt::format("{}:{}", t.key, t.effect)
                                       : fmt::format("{}={}:{}", t.key, t.value, t.effect));
    }
    add("--register-with-taints=" + goQuote(fmt::format("{}", fmt::join(taints, ","))));
  }
  if (auto pods = effectiveMaxPods(o)) {
    add(fmt::format("--max-pods={}", *pods));
  }
  if (!o.kubelet) {
    return args;
  }
  const api::karpenter::KubeletConfiguration& k = *o.kubelet;
  auto same = [](const std::string& v) { return v; };
  if (k.podsPerCore) {
    add(fmt::format("--pods-per-core={}", *k.podsPerCore));
  }
  add(joinedFlag("--system-reserved", k.systemReserved, "=", same));
  add(joinedFlag("--kube-reserved", k.kubeReserved, "=", same));
  add(joinedFlag("--eviction-hard", k.evictionHard, "<", same));
  add(joinedFlag("--eviction-soft", k.evictionSoft, "<", same));
  add(joinedFlag("--eviction-soft-grace-period", k.evictionSoftGracePeriod, "=",
                 [](const core::Duration& d) { return d.toString(); }));
  if (k.evictionMaxPodGracePeriod) {
    add(fmt::format("--eviction-max-pod-grace-period={}", *k.evictionMaxPodGracePeriod));
  }
  if (k.imageGCHighThresholdPercent) {
    add(fmt::format("--image-gc-high-threshold={}", *k.imageGCHighThresholdPercent));
  }
  if (k.imageGCLowThresholdPercent) {
    add(fmt::format("--image-gc-low-threshold={}", *k.imageGCLowThresholdPercent));
  }
  if (k.cpuCFSQuota) {
    add(fmt::format("--cpu-cfs-quota={}", *k.cpuCFSQuota));
  }
  return args;
}

std::string bootstrapScript(const BootstrapOptions& o) {
  std::string s = "#!/bin/bash -xe\n";
  s += "exec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1\n";
  // bootstrap.sh takes its options without '='.
  s += fmt::format("/etc/eks/bootstrap.sh '{}' --apiserver-endpoint '{}'", o.cluster.name,
                   o.cluster.endpoint);
  if (!o.cluster.caBundle.empty()) {
    s += fmt::format(" --b64-cluster-ca '{}'", o.cluster.caBundle);
  }
  const std::vector<std::string>* dns = o.kubelet ? &o.kubelet->clusterDNS : nullptr;
  if (dns && !dns->empty()) {
    if (dns->front().find(':') != std::string::npos) {
      s += " \\\n--ip-family ipv6";
    }
    s += fmt::format(" \\\n--dns-cluster-ip '{}'", dns->front());
  }
  // With a max-pods of our own, bootstrap.sh must not compute its ENI-based one.
  if (effectiveMaxPods(o)) {
    s += " \\\n--use-max-pods false";
  }
  if (auto args = kubeletArgs(o); !args.empty()) {
    s += fmt::format(" \\\n--kubelet-extra-args '{}'", fmt::join(args, " "));
  }
  if (o.raid0) {
    s += " \\\n--local-disks raid0";
  }
  return s;
}

}  // namespace

core::Result<std::string> al2UserData(const BootstrapOptions& options) {
  std::vector<MimePart> parts;
  const std::optional<std::string>& data = options.customUserData;
  if (data && data->find_first_not_of(" \t\r\n") != std::string::npos) {
    if (looksLikeMime(*data)) {
      auto user = parseMimeArchive(*data);
      if (!user) {
        return core::fail(user.error());
      }
      parts = std::move(*user);
    } else {
      parts.push_back(mimePart(kContentTypeShellScript, *data));
    }
  }
  parts.push_back(mimePart(kContentTypeShellScript, bootstrapScript(options)));
  return writeMimeArchive(parts);
}

std::vector<std::string> eksKubeletArgs(const BootstrapOptions& options) {
  return kubeletArgs(options);
}

}  // namespace nodewright::cloud::aws::amifamily
