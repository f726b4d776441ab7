#include "api/core/apps.h"
#include "api/core/event.h"
#include "api/core/lease.h"
#include "api/core/namespace.h"
#include "api/core/node.h"
#include "api/core/pod.h"
#include "api/core/policy.h"
#include "api/core/rbac.h"
#include "api/core/secret.h"
#include "api/core/service.h"
#include "api/registry.h"

#include <vector>

// The built-in kinds controllers read and the embedded API server serves. Names, short names,
// scopes and status subresources are kube-apiserver's; printer columns follow kubectl's tables
// as far as a JSONPath can express them.
namespace nodewright::api {

namespace {

constexpr const char* kAge = ".metadata.creationTimestamp";

template <class T>
KindInfo builtin(std::string group, std::string kind, std::string plural, bool namespaced,
                 bool statusSubresource) {
  KindInfo info = kindFor<T>(std::move(group), "v1", std::move(kind), std::move(plural));
  info.custom = false;
  info.namespaced = namespaced;
  info.statusSubresource = statusSubresource;
  return info;
}

// RBAC objects are validated and stored only: the embedded API server does not authorize.
void registerRbacKinds(Registry& registry) {
  using corev1::ClusterRole;
  using corev1::ClusterRoleBinding;
  using corev1::Role;
  using corev1::RoleBinding;
  constexpr const char* kGroup = "rbac.authorization.k8s.io";
  const std::vector<PrinterColumn> bindingColumns = {
      {"Role", "string", ".roleRef.name", "", 0},
      {"Age", "date", kAge, "", 0},
      {"Subjects", "string", ".subjects[*].name", "", 1},
  };

  // Roles print their creation time as a timestamp, as kube-apiserver's printer does.
  KindInfo clusterRole = builtin<ClusterRole>(kGroup, "ClusterRole", "clusterroles", false, false);
  clusterRole.printerColumns = {{"Created At", "string", kAge, "", 0}};
  registry.add(std::move(clusterRole));

  KindInfo clusterRoleBinding = builtin<ClusterRoleBinding>(kGroup, "ClusterRoleBinding",
                                                            "clusterrolebindings", false, false);
  clusterRoleBinding.printerColumns = bindingColumns;
  registry.add(std::move(clusterRoleBinding));

  KindInfo role = builtin<Role>(kGroup, "Role", "roles", true, false);
  role.printerColumns = {{"Created At", "string", kAge, "", 0}};
  registry.add(std::move(role));

  KindInfo roleBinding = builtin<RoleBinding>(kGroup, "RoleBinding", "rolebindings", true, false);
  roleBinding.printerColumns = bindingColumns;
  registry.add(std::move(roleBinding));
}

}  // namespace

void registerCoreKinds(Registry& registry) {
  using corev1::ConfigMap;
  using corev1::DaemonSet;
  using corev1::Deployment;
  using corev1::Event;
  using corev1::Lease;
  using corev1::Namespace;
  using corev1::Node;
  using corev1::Pod;
  using corev1::PodDisruptionBudget;
  using corev1::ReplicaSet;
  using corev1::Secret;
  using corev1::Service;
  using corev1::ServiceAccount;

  KindInfo ns = builtin<Namespace>("", "Namespace", "namespaces", false, true);
  ns.shortNames = {"ns"};
  ns.printerColumns = {
      {"Status", "string", ".status.phase", "", 0},
      {"Age", "date", kAge, "", 0},
  };
  registry.add(std::move(ns));

  KindInfo pod = builtin<Pod>("", "Pod", "pods", true, true);
  pod.shortNames = {"po"};
  pod.categories = {"all"};
  pod.printerColumns = {
      {"Status", "string", ".status.phase", "", 0},
      {"Age", "date", kAge, "", 0},
      {"IP", "string", ".status.podIP", "", 1},
      {"Node", "string", ".spec.nodeName", "", 1},
      {"Nominated Node", "string", ".status.nominatedNodeName", "", 1},
  };
  registry.add(std::move(pod));

  KindInfo node = builtin<Node>("", "Node", "nodes", false, true);
  node.shortNames = {"no"};
  node.printerColumns = {
      {"Ready", "string", R"(.status.conditions[?(@.type=="Ready")].status)", "", 0},
      {"Age", "date", kAge, "", 0},
      {"Version", "string", ".status.nodeInfo.kubeletVersion", "", 0},
      {"Provider ID", "string", ".spec.providerID", "", 1},
      {"OS Image", "string", ".status.nodeInfo.osImage", "", 1},
      {"Kernel Version", "string", ".status.nodeInfo.kernelVersion", "", 1},
  };
  registry.add(std::move(node));

  KindInfo event = builtin<Event>("", "Event", "events", true, false);
  event.shortNames = {"ev"};
  event.printerColumns = {
      {"Last Seen", "date", ".lastTimestamp", "", 0},
      {"Type", "string", ".type", "", 0},
      {"Reason", "string", ".reason", "", 0},
      {"Object", "string", ".involvedObject.name", "", 0},
      {"Message", "string", ".message", "", 0},
  };
  registry.add(std::move(event));

  KindInfo secret = builtin<Secret>("", "Secret", "secrets", true, false);
  secret.printerColumns = {
      {"Type", "string", ".type", "", 0},
      {"Age", "date", kAge, "", 0},
  };
  registry.add(std::move(secret));

  KindInfo serviceAccount =
      builtin<ServiceAccount>("", "ServiceAccount", "serviceaccounts", true, false);
  serviceAccount.shortNames = {"sa"};
  serviceAccount.printerColumns = {{"Age", "date", kAge, "", 0}};
  registry.add(std::move(serviceAccount));

  KindInfo service = builtin<Service>("", "Service", "services", true, true);
  service.shortNames = {"svc"};
  service.categories = {"all"};
  service.printerColumns = {
      {"Type", "string", ".spec.type", "", 0},
      {"Cluster-IP", "string", ".spec.clusterIP", "", 0},
      {"Ports", "string", ".spec.ports[*].port", "", 0},
      {"Age", "date", kAge, "", 0},
      {"Selector", "string", ".spec.selector", "", 1},
  };
  registry.add(std::move(service));

  KindInfo configMap = builtin<ConfigMap>("", "ConfigMap", "configmaps", true, false);
  configMap.shortNames = {"cm"};
  configMap.printerColumns = {{"Age", "date", kAge, "", 0}};
  registry.add(std::move(configMap));

  KindInfo lease = builtin<Lease>("coordination.k8s.io", "Lease", "leases", true, false);
  lease.printerColumns = {
      {"Holder", "string", ".spec.holderIdentity", "", 0},
      {"Age", "date", kAge, "", 0},
  };
  registry.add(std::move(lease));

  KindInfo deploy = builtin<Deployment>("apps", "Deployment", "deployments", true, true);
  deploy.shortNames = {"deploy"};
  deploy.categories = {"all"};
  deploy.printerColumns = {
      {"Ready", "integer", ".status.readyReplicas", "", 0},
      {"Up-to-date", "integer", ".status.updatedReplicas", "", 0},
      {"Available", "integer", ".status.availableReplicas", "", 0},
      {"Age", "date", kAge, "", 0},
  };
  registry.add(std::move(deploy));

  KindInfo rs = builtin<ReplicaSet>("apps", "ReplicaSet", "replicasets", true, true);
  rs.shortNames = {"rs"};
  rs.categories = {"all"};
  rs.printerColumns = {
      {"Desired", "integer", ".spec.replicas", "", 0},
      {"Current", "integer", ".status.replicas", "", 0},
      {"Ready", "integer", ".status.readyReplicas", "", 0},
      {"Age", "date", kAge, "", 0},
  };
  registry.add(std::move(rs));

  KindInfo ds = builtin<DaemonSet>("apps", "DaemonSet", "daemonsets", true, true);
  ds.shortNames = {"ds"};
  ds.categories = {"all"};
  ds.printerColumns = {
      {"Desired", "integer", ".status.desiredNumberScheduled", "", 0},
      {"Current", "integer", ".status.currentNumberScheduled", "", 0},
      {"Ready", "integer", ".status.numberReady", "", 0},
      {"Up-to-date", "integer", ".status.updatedNumberScheduled", "", 0},
      {"Available", "integer", ".status.numberAvailable", "", 0},
      {"Age", "date", kAge, "", 0},
  };
  registry.add(std::move(ds));

  KindInfo pdb = builtin<PodDisruptionBudget>("policy", "PodDisruptionBudget",
                                              "poddisruptionbudgets", true, true);
  pdb.shortNames = {"pdb"};
  pdb.printerColumns = {
      {"Min Available", "string", ".spec.minAvailable", "", 0},
      {"Max Unavailable", "string", ".spec.maxUnavailable", "", 0},
      {"Allowed Disruptions", "integer", ".status.disruptionsAllowed", "", 0},
      {"Age", "date", kAge, "", 0},
  };
  registry.add(std::move(pdb));

  registerRbacKinds(registry);
}

}  // namespace nodewright::api
