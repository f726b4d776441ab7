#include "emulators/kubelet/node_builder.h"

#include "cloud/well_known_labels.h"
#include "emulators/kubelet/objects.h"

namespace nodewright::emulators::kubelet {
namespace {

api::corev1::NodeCondition condition(const std::string& type, const std::string& status,
                                     const std::string& reason, const std::string& message,
                                     core::TimePoint now) {
  api::corev1::NodeCondition c;
  c.type = type;
  c.status = status;
  c.reason = reason;
  c.message = message;
  c.lastHeartbeatTime = core::Time(now);
  c.lastTransitionTime = core::Time(now);
  return c;
}

api::corev1::NodeAddress address(const std::string& type, const std::string& value) {
  api::corev1::NodeAddress a;
  a.type = type;
  a.address = value;
  return a;
}

std::string labelOr(const api::Labels& labels, const char* key, const std::string& fallback) {
  auto it = labels.find(key);
  return it == labels.end() ? fallback : it->second;
}

// What a kubelet reports of its OS: the image and kernel of Amazon Linux 2023, or of the Windows
// Server release whose build it runs (Windows reports the build with its update revision as
// the kernel version).
struct OsReport {
  std::string osImage;
  std::string kernelVersion;
};

OsReport windowsReport(const std::string& build) {
  struct Release {
    const char* build;
    const char* osImage;
    const char* revision;
  };
  static constexpr Release kReleases[] = {
      {"10.0.17763", "Windows Server 2019 Datacenter", "6414"},
      {"10.0.20348", "Windows Server 2022 Datacenter", "2849"},
      {"10.0.26100", "Windows Server 2025 Datacenter", "2605"},
  };
  for (const Release& r : kReleases) {
    if (build == r.build) {
      return {r.osImage, build + "." + r.revision};
    }
  }
  return {"Windows Server Datacenter", build.empty() ? "10.0" : build};
}

OsReport linuxReport(const std::string& arch) {
  return {"Amazon Linux 2023",
          std::string("6.1.112-122.189.amzn2023.") + (arch == "arm64" ? "aarch64" : "x86_64")};
}

}  // namespace

std::string nodeNameOf(std::string_view providerID) {
  auto slash = providerID.find_last_of('/');
  return std::string(slash == std::string_view::npos ? providerID : providerID.substr(slash + 1));
}

std::optional<api::corev1::Node> nodeFor(const cloud::Machine& machine,
                                         const api::karpenter::NodeClaim* claim,
                                         const std::string& kubeletVersion, core::TimePoint now) {
  api::corev1::Node node;
  node.apiVersion = "v1";
  node.kind = "Node";
  const std::string name = nodeNameOf(machine.providerID);
  node.metadata.name = name;
  node.metadata.annotations[kManagedAnnotation] = "true";

  api::Labels labels = machine.labels;
  if (claim != nullptr) {
    // --node-labels in the user data: the NodeClaim's labels; the machine's own win.
    for (const auto& [key, value] : claim->metadata.labels) {
      labels.emplace(key, value);
    }
  }
  labels[kHostnameLabel] = name;
  if (!machine.nodePoolName.empty()) {
    labels[cloud::labels::kNodePool] = machine.nodePoolName;
  }
  // A kubelet always knows its platform.
  const std::string arch = labelOr(labels, cloud::labels::kArch, "amd64");
  const std::string os = labelOr(labels, cloud::labels::kOs, "linux");
  labels[cloud::labels::kArch] = arch;
  labels[cloud::labels::kOs] = os;
  const bool windows = os == "windows";
  // The Windows Server build, as the instance type's labels (node.kubernetes.io/windows-build)
  // and so the NodeClaim's carry it; a real kubelet reads it from the OS.
  const std::string build = windows ? labelOr(labels, cloud::labels::kWindowsBuild, "") : "";
  node.metadata.labels = std::move(labels);

  node.spec.providerID = machine.providerID;
  api::corev1::Taint unregistered;
  unregistered.key = kUnregisteredTaintKey;
  unregistered.effect = api::corev1::kTaintEffectNoExecute;
  node.spec.taints.push_back(unregistered);

  node.status.capacity = machine.capacity;
  node.status.allocatable = machine.allocatable;
  if (node.status.capacity.empty() && claim != nullptr) {
    node.status.capacity = claim->status.capacity;
    node.status.allocatable = claim->status.allocatable;
  }
  if (node.status.capacity.empty()) {
    return std::nullopt;
  }
  if (node.status.allocatable.empty()) {
    node.status.allocatable = node.status.capacity;
  }

  node.status.conditions = {
      condition("MemoryPressure", "False", "KubeletHasSufficientMemory",
                "kubelet has sufficient memory available", now),
      condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure",
                now),
      condition("PIDPressure", "False", "KubeletHasSufficientPID",
                "kubelet has sufficient PID available", now),
      condition("Ready", "False", "KubeletNotReady",
                "container runtime network not ready: NetworkReady=false", now),
  };
  const std::string ip = fakeIp(machine.providerID, 10);
  node.status.addresses = {address("InternalIP", ip), address("Hostname", name)};
  auto& info = node.status.nodeInfo;
  info.architecture = arch;
  info.operatingSystem = os;
  info.kubeletVersion = kubeletVersion;
  info.kubeProxyVersion = kubeletVersion;
  info.containerRuntimeVersion = "containerd://1.7.22";
  OsReport report = windows ? windowsReport(build) : linuxReport(arch);
  info.osImage = std::move(report.osImage);
  info.kernelVersion = std::move(report.kernelVersion);
  info.machineID = name;
  info.systemUUID = name;
  info.bootID = name;
  return node;
}

}  // namespace nodewright::emulators::kubelet
