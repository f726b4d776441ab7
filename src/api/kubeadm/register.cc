#include "api/capi/common.h"
#include "api/kubeadm/control_plane.h"
#include "api/kubeadm/kubeadm_config.h"
#include "api/registry.h"

namespace nodewright::api {
namespace {

// Upstream writes .metadata.labels['cluster\.x-k8s\.io/cluster-name']; the escaped-dot form
// selects the same label and is the one the table printer and the CAPZ kinds use.
constexpr const char* kClusterLabelPath = ".metadata.labels.cluster\\.x-k8s\\.io/cluster-name";

PrinterColumn column(std::string name, std::string type, std::string jsonPath,
                     std::string description, int priority = 0) {
  return PrinterColumn{std::move(name), std::move(type), std::move(jsonPath),
                       std::move(description), priority};
}

PrinterColumn ageColumn(const std::string& kind) {
  return column("Age", "date", ".metadata.creationTimestamp",
                "Time duration since creation of " + kind);
}

template <class T>
KindInfo kubeadmKind(std::string group, std::string kind, std::string plural) {
  KindInfo info =
      kindFor<T>(std::move(group), kubeadm::kVersion, std::move(kind), std::move(plural));
  info.namespaced = true;
  info.statusSubresource = true;
  info.categories = {capi::kCategory};
  return info;
}

}  // namespace

void registerKubeadmKinds(Registry& registry) {
  KindInfo config = kubeadmKind<kubeadm::KubeadmConfig>(kubeadm::kBootstrapGroup, "KubeadmConfig",
                                                        "kubeadmconfigs");
  config.printerColumns = {column("Cluster", "string", kClusterLabelPath, "Cluster"),
                           ageColumn("KubeadmConfig")};
  registry.add(std::move(config));

  KindInfo configTemplate = kubeadmKind<kubeadm::KubeadmConfigTemplate>(
      kubeadm::kBootstrapGroup, "KubeadmConfigTemplate", "kubeadmconfigtemplates");
  configTemplate.statusSubresource = false;
  configTemplate.printerColumns = {ageColumn("KubeadmConfigTemplate")};
  registry.add(std::move(configTemplate));

  KindInfo controlPlane = kubeadmKind<kubeadm::KubeadmControlPlane>(
      kubeadm::kControlPlaneGroup, "KubeadmControlPlane", "kubeadmcontrolplanes");
  controlPlane.shortNames = {"kcp"};
  controlPlane.printerColumns = {
      column("Cluster", "string", kClusterLabelPath, "Cluster"),
      column("Initialized", "boolean", ".status.initialized",
             "This denotes whether or not the control plane has the uploaded kubeadm-config "
             "configmap"),
      column("API Server Available", "boolean", ".status.ready",
             "KubeadmControlPlane API Server is ready to receive requests"),
      column("Desired", "integer", ".spec.replicas",
             "Total number of machines desired by this control plane", 10),
      column("Replicas", "integer", ".status.replicas",
             "Total number of non-terminated machines targeted by this control plane"),
      column("Ready", "integer", ".status.readyReplicas",
             "Total number of fully running and ready control plane machines"),
      column("Updated", "integer", ".status.updatedReplicas",
             "Total number of non-terminated machines targeted by this control plane that have "
             "the desired template spec"),
      column("Unavailable", "integer", ".status.unavailableReplicas",
             "Total number of unavailable machines targeted by this control plane"),
      ageColumn("KubeadmControlPlane"),
      column("Version", "string", ".spec.version",
             "Kubernetes version associated with this control plane"),
  };
  registry.add(std::move(controlPlane));
}

}  // namespace nodewright::api
