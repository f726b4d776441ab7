#include "apiserver/patch/patch_meta.h"

#include <utility>

namespace nodewright::apiserver::patch {

const FieldMeta* TypeMeta::field(std::string_view name) const {
  auto it = fields.find(name);
  return it == fields.end() ? nullptr : &it->second;
}

namespace {

FieldMeta mergeBy(std::string key, const TypeMeta* type = nullptr) {
  return FieldMeta{true, std::move(key), type};
}
FieldMeta primitiveSet() {
  return FieldMeta{true, "", nullptr};
}
FieldMeta nested(const TypeMeta& type) {
  return FieldMeta{false, "", &type};
}

// Built once; members reference each other, so the catalog is never copied or moved.
// Tags from kubernetes/api core/v1, apps/v1, policy/v1, rbac/v1 and apimachinery meta/v1 types.go.
struct Catalog {
  TypeMeta objectMeta;
  TypeMeta container;
  TypeMeta podSpec;
  TypeMeta podStatus;
  TypeMeta podTemplate;
  TypeMeta pod;
  TypeMeta node;
  TypeMeta nodeSpec;
  TypeMeta nodeStatus;
  TypeMeta conditionsStatus;  // status.conditions merged by type, nothing else special
  TypeMeta withConditions;    // Namespace, PodDisruptionBudget
  TypeMeta workloadSpec;      // spec.template of Deployment, ReplicaSet, DaemonSet
  TypeMeta workload;
  TypeMeta metadataOnly;  // Event, Secret, ConfigMap, Lease, RBAC kinds, custom resources
  TypeMeta serviceAccount;
  TypeMeta serviceSpec;
  TypeMeta service;

  Catalog() {
    objectMeta.fields = {{"finalizers", primitiveSet()}, {"ownerReferences", mergeBy("uid")}};
    container.fields = {{"ports", mergeBy("containerPort")},
                        {"env", mergeBy("name")},
                        {"volumeMounts", mergeBy("mountPath")},
                        {"volumeDevices", mergeBy("devicePath")}};
    // volumes and resourceClaims are also "retainKeys": that only shapes the patches kubectl
    // computes; the $retainKeys directive it sends is honoured wherever it appears.
    podSpec.fields = {{"volumes", mergeBy("name")},
                      {"initContainers", mergeBy("name", &container)},
                      {"containers", mergeBy("name", &container)},
                      {"ephemeralContainers", mergeBy("name", &container)},
                      {"imagePullSecrets", mergeBy("name")},
                      {"hostAliases", mergeBy("ip")},
                      {"topologySpreadConstraints", mergeBy("topologyKey")},
                      {"schedulingGates", mergeBy("name")},
                      {"resourceClaims", mergeBy("name")}};
    podStatus.fields = {{"conditions", mergeBy("type")},
                        {"podIPs", mergeBy("ip")},
                        {"hostIPs", mergeBy("ip")},
                        {"resourceClaimStatuses", mergeBy("name")}};
    podTemplate.fields = {{"metadata", nested(objectMeta)}, {"spec", nested(podSpec)}};
    pod.fields = {
        {"metadata", nested(objectMeta)}, {"spec", nested(podSpec)}, {"status", nested(podStatus)}};
    // Node taints carry no strategy upstream: a patch replaces the whole list.
    nodeSpec.fields = {{"podCIDRs", primitiveSet()}};
    nodeStatus.fields = {{"conditions", mergeBy("type")}, {"addresses", mergeBy("type")}};
    node.fields = {{"metadata", nested(objectMeta)},
                   {"spec", nested(nodeSpec)},
                   {"status", nested(nodeStatus)}};
    conditionsStatus.fields = {{"conditions", mergeBy("type")}};
    withConditions.fields = {{"metadata", nested(objectMeta)},
                             {"status", nested(conditionsStatus)}};
    workloadSpec.fields = {{"template", nested(podTemplate)}};
    workload.fields = {{"metadata", nested(objectMeta)},
                       {"spec", nested(workloadSpec)},
                       {"status", nested(conditionsStatus)}};
    metadataOnly.fields = {{"metadata", nested(objectMeta)}};
    serviceAccount.fields = {{"metadata", nested(objectMeta)},
                             {"secrets", mergeBy("name")},
                             {"imagePullSecrets", mergeBy("name")}};
    serviceSpec.fields = {{"ports", mergeBy("port")}};
    service.fields = {{"metadata", nested(objectMeta)},
                      {"spec", nested(serviceSpec)},
                      {"status", nested(conditionsStatus)}};
  }
  Catalog(const Catalog&) = delete;
  Catalog& operator=(const Catalog&) = delete;
};

const Catalog& catalog() {
  static const Catalog instance;
  return instance;
}

}  // namespace

const TypeMeta* builtinKindMeta(std::string_view group, std::string_view kind) {
  const Catalog& c = catalog();
  struct Entry {
    std::string_view group;
    std::string_view kind;
    const TypeMeta* type;
  };
  const Entry kinds[] = {
      {"", "Pod", &c.pod},
      {"", "Node", &c.node},
      {"", "Namespace", &c.withConditions},
      {"", "Event", &c.metadataOnly},
      {"", "Secret", &c.metadataOnly},
      {"", "ConfigMap", &c.metadataOnly},
      {"", "ServiceAccount", &c.serviceAccount},
      {"", "Service", &c.service},
      {"coordination.k8s.io", "Lease", &c.metadataOnly},
      {"apps", "Deployment", &c.workload},
      {"apps", "ReplicaSet", &c.workload},
      {"apps", "DaemonSet", &c.workload},
      {"policy", "PodDisruptionBudget", &c.withConditions},
      // RBAC rules and subjects carry no patch strategy upstream: a patch replaces the list.
      {"rbac.authorization.k8s.io", "Role", &c.metadataOnly},
      {"rbac.authorization.k8s.io", "ClusterRole", &c.metadataOnly},
      {"rbac.authorization.k8s.io", "RoleBinding", &c.metadataOnly},
      {"rbac.authorization.k8s.io", "ClusterRoleBinding", &c.metadataOnly},
  };
  for (const Entry& entry : kinds) {
    if (entry.group == group && entry.kind == kind) {
      return entry.type;
    }
  }
  return nullptr;
}

const TypeMeta& genericKindMeta() {
  return catalog().metadataOnly;
}

}  // namespace nodewright::apiserver::patch
