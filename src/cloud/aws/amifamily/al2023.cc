// AL2023: nodeadm reads NodeConfig documents from a MIME archive and merges them in order, so
// the user's parts go first and ours last: the cluster settings we write win.
#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "api/yaml.h"
#include "cloud/aws/amifamily/families.h"
#include "cloud/aws/amifamily/mime.h"

namespace nodewright::cloud::aws::amifamily {
namespace {

// Sorted keys, as sigs.k8s.io/yaml writes Karpenter's NodeConfig.
using SortedJson = nlohmann::json;

SortedJson kubeletConfig(const BootstrapOptions& o) {
  SortedJson c = SortedJson::object();
  if (o.kubelet) {
    const api::karpenter::KubeletConfiguration& k = *o.kubelet;
    if (!k.clusterDNS.empty()) {
      c["clusterDNS"] = k.clusterDNS;
    }
    if (k.cpuCFSQuota) {
      c["cpuCFSQuota"] = *k.cpuCFSQuota;
    }
    if (!k.evictionHard.empty()) {
      c["evictionHard"] = k.evictionHard;
    }
    if (k.evictionMaxPodGracePeriod) {
      c["evictionMaxPodGracePeriod"] = *k.evictionMaxPodGracePeriod;
    }
    if (!k.evictionSoft.empty()) {
      c["evictionSoft"] = k.evictionSoft;
    }
    for (const auto& [signal, period] : k.evictionSoftGracePeriod) {
      c["evictionSoftGracePeriod"][signal] = period.toString();
    }
    if (k.imageGCHighThresholdPercent) {
      c["imageGCHighThresholdPercent"] = *k.imageGCHighThresholdPercent;
    }
    if (k.imageGCLowThresholdPercent) {
      c["imageGCLowThresholdPercent"] = *k.imageGCLowThresholdPercent;
    }
    if (!k.kubeReserved.empty()) {
      c["kubeReserved"] = k.kubeReserved;
    }
    if (k.podsPerCore) {
      c["podsPerCore"] = *k.podsPerCore;
    }
    if (!k.systemReserved.empty()) {
      c["systemReserved"] = k.systemReserved;
    }
  }
  if (auto pods = effectiveMaxPods(o)) {
    c["maxPods"] = *pods;
  }
  for (const api::karpenter::Taint& t : o.taints) {
    SortedJson taint{{"effect", t.effect}, {"key", t.key}};
    if (!t.value.empty()) {
      taint["value"] = t.value;
    }
    c["registerWithTaints"].push_back(std::move(taint));
  }
  return c;
}

std::string nodeConfig(const BootstrapOptions& o) {
  SortedJson cluster = SortedJson::object();
  auto set = [&](const char* key, const std::string& value) {
    if (!value.empty()) {
      cluster[key] = value;
    }
  };
  set("apiServerEndpoint", o.cluster.endpoint);
  set("certificateAuthority", o.cluster.caBundle);  // []byte in nodeadm: base64 in YAML
  set("cidr", o.cluster.serviceCidr);
  set("name", o.cluster.name);
  SortedJson kubelet = SortedJson::object();
  if (SortedJson config = kubeletConfig(o); !config.empty()) {
    kubelet["config"] = std::move(config);
  }
  if (std::string labels = nodeLabelsFlag(o); !labels.empty()) {
    kubelet["flags"] = {labels};
  }
  SortedJson doc{{"apiVersion", "node.eks.aws/v1alpha1"},
                 {"kind", "NodeConfig"},
                 {"spec", {{"cluster", cluster}, {"kubelet", kubelet}}}};
  if (o.raid0) {
    doc["spec"]["instance"] = {{"localStorage", {{"strategy", "RAID0"}}}};
  }
  return "# nodewright generated NodeConfig\n" + api::toYaml(api::Json(doc));
}

// Karpenter's test for a bare NodeConfig: the text reads as YAML mappings.
bool isYamlMapping(const std::string& text) {
  auto docs = api::parseDocuments(text);
  if (!docs || docs->empty()) {
    return false;
  }
  for (const api::Document& d : *docs) {
    if (!d.errors.empty() || !d.value.is_object()) {
      return false;
    }
  }
  return true;
}

std::string mediaType(const std::string& contentType) {
  std::string type = contentType.substr(0, contentType.find(';'));
  while (!type.empty() && type.back() == ' ') {
    type.pop_back();
  }
  return type;
}

// The user's user data as MIME parts: a MIME archive's own parts, else one part holding all
// of it, a NodeConfig or (a script, or anything that is not YAML) a shell script.
core::Result<std::vector<MimePart>> userParts(const std::optional<std::string>& data) {
  if (!data || data->find_first_not_of(" \t\r\n") == std::string::npos) {
    return std::vector<MimePart>{};
  }
  if (!looksLikeMime(*data)) {
    const bool script = data->starts_with("#!");
    return std::vector<MimePart>{mimePart(
        !script && isYamlMapping(*data) ? kContentTypeNodeConfig : kContentTypeShellScript, *data)};
  }
  auto parts = parseMimeArchive(*data);
  if (!parts) {
    return core::fail(parts.error());
  }
  for (size_t i = 0; i < parts->size(); ++i) {
    const MimePart& part = (*parts)[i];
    if (mediaType(part.contentType()) == kContentTypeNodeConfig && !isYamlMapping(part.content)) {
      return core::fail(userDataError(fmt::format("MIME part {} ({}) is not a YAML NodeConfig",
                                                  i + 1, kContentTypeNodeConfig)));
    }
  }
  return parts;
}

}  // namespace

core::Result<std::string> al2023UserData(const BootstrapOptions& options) {
  auto parts = userParts(options.customUserData);
  if (!parts) {
    return core::fail(parts.error());
  }
  parts->push_back(mimePart(kContentTypeNodeConfig, nodeConfig(options)));
  return writeMimeArchive(*parts);
}

}  // namespace nodewright::cloud::aws::amifamily
