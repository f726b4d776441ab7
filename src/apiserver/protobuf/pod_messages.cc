// k8s.io/api/core/v1/generated.proto: Pod, its spec and template. Volumes cover the sources
// hand-written manifests use most (hostPath, emptyDir, secret, nfs, PVC, configMap); other
// sources, ephemeral containers and container statuses are skipped as unknown fields.
#include "apiserver/protobuf/messages.h"

namespace nodewright::apiserver::protobuf {
namespace {

using namespace field;

constexpr Field kKeyToPathFields[] = {str(1, "key").keep(), str(2, "path").keep(),
                                      i32(3, "mode").keep()};
constexpr MessageDescriptor kKeyToPath{"KeyToPath", kKeyToPathFields};

constexpr Field kHostPathFields[] = {str(1, "path").keep(), str(2, "type").keep()};
constexpr MessageDescriptor kHostPath{"HostPathVolumeSource", kHostPathFields};

constexpr Field kEmptyDirFields[] = {str(1, "medium"), quantity(2, "sizeLimit")};
constexpr MessageDescriptor kEmptyDir{"EmptyDirVolumeSource", kEmptyDirFields};

constexpr Field kSecretVolumeFields[] = {
    str(1, "secretName"), repeated(message(2, "items", kKeyToPath)), i32(3, "defaultMode").keep(),
    boolean(4, "optional").keep()};
constexpr MessageDescriptor kSecretVolume{"SecretVolumeSource", kSecretVolumeFields};

constexpr Field kNfsFields[] = {str(1, "server").keep(), str(2, "path").keep(),
                                boolean(3, "readOnly")};
constexpr MessageDescriptor kNfs{"NFSVolumeSource", kNfsFields};

constexpr Field kClaimVolumeFields[] = {str(1, "claimName").keep(), boolean(2, "readOnly")};
constexpr MessageDescriptor kClaimVolume{"PersistentVolumeClaimVolumeSource", kClaimVolumeFields};

constexpr Field kConfigMapVolumeFields[] = {
    inlined(1, kLocalObjectReference), repeated(message(2, "items", kKeyToPath)),
    i32(3, "defaultMode").keep(), boolean(4, "optional").keep()};
constexpr MessageDescriptor kConfigMapVolume{"ConfigMapVolumeSource", kConfigMapVolumeFields};

constexpr Field kVolumeSourceFields[] = {
    message(1, "hostPath", kHostPath),
    message(2, "emptyDir", kEmptyDir),
    message(6, "secret", kSecretVolume),
    message(7, "nfs", kNfs),
    message(10, "persistentVolumeClaim", kClaimVolume),
    message(19, "configMap", kConfigMapVolume),
};
constexpr MessageDescriptor kVolumeSource{"VolumeSource", kVolumeSourceFields};

constexpr Field kVolumeFields[] = {str(1, "name").keep(), inlined(2, kVolumeSource)};
constexpr MessageDescriptor kVolume{"Volume", kVolumeFields};

constexpr Field kTolerationFields[] = {
    str(1, "key"),
    str(2, "operator"),
    str(3, "value"),
    str(4, "effect"),
    i64(5, "tolerationSeconds").keep(),
};
constexpr MessageDescriptor kToleration{"Toleration", kTolerationFields};

constexpr Field kNodeSelectorRequirementFields[] = {str(1, "key").keep(), str(2, "operator").keep(),
                                                    repeated(str(3, "values"))};
constexpr MessageDescriptor kNodeSelectorRequirement{"NodeSelectorRequirement",
                                                     kNodeSelectorRequirementFields};

constexpr Field kNodeSelectorTermFields[] = {
    repeated(message(1, "matchExpressions", kNodeSelectorRequirement)),
    repeated(message(2, "matchFields", kNodeSelectorRequirement)),
};
constexpr MessageDescriptor kNodeSelectorTerm{"NodeSelectorTerm", kNodeSelectorTermFields};

constexpr Field kNodeSelectorFields[] = {
    repeated(message(1, "nodeSelectorTerms", kNodeSelectorTerm))};
constexpr MessageDescriptor kNodeSelector{"NodeSelector", kNodeSelectorFields};

constexpr Field kPreferredSchedulingTermFields[] = {i32(1, "weight").keep(),
                                                    message(2, "preference", kNodeSelectorTerm)};
constexpr MessageDescriptor kPreferredSchedulingTerm{"PreferredSchedulingTerm",
                                                     kPreferredSchedulingTermFields};

constexpr Field kNodeAffinityFields[] = {
    message(1, "requiredDuringSchedulingIgnoredDuringExecution", kNodeSelector),
    repeated(
        message(2, "preferredDuringSchedulingIgnoredDuringExecution", kPreferredSchedulingTerm)),
};
constexpr MessageDescriptor kNodeAffinity{"NodeAffinity", kNodeAffinityFields};

constexpr Field kPodAffinityTermFields[] = {
    message(1, "labelSelector", kLabelSelector),
    repeated(str(2, "namespaces")),
    str(3, "topologyKey").keep(),
    message(4, "namespaceSelector", kLabelSelector),
    repeated(str(5, "matchLabelKeys")),
    repeated(str(6, "mismatchLabelKeys")),
};
constexpr MessageDescriptor kPodAffinityTerm{"PodAffinityTerm", kPodAffinityTermFields};

constexpr Field kWeightedPodAffinityTermFields[] = {
    i32(1, "weight").keep(), message(2, "podAffinityTerm", kPodAffinityTerm)};
constexpr MessageDescriptor kWeightedPodAffinityTerm{"WeightedPodAffinityTerm",
                                                     kWeightedPodAffinityTermFields};

// PodAffinity and PodAntiAffinity share one layout.
constexpr Field kPodAffinityFields[] = {
    repeated(message(1, "requiredDuringSchedulingIgnoredDuringExecution", kPodAffinityTerm)),
    repeated(
        message(2, "preferredDuringSchedulingIgnoredDuringExecution", kWeightedPodAffinityTerm)),
};
constexpr MessageDescriptor kPodAffinity{"PodAffinity", kPodAffinityFields};

constexpr Field kAffinityFields[] = {
    message(1, "nodeAffinity", kNodeAffinity),
    message(2, "podAffinity", kPodAffinity),
    message(3, "podAntiAffinity", kPodAffinity),
};
constexpr MessageDescriptor kAffinity{"Affinity", kAffinityFields};

constexpr Field kTopologySpreadConstraintFields[] = {
    i32(1, "maxSkew").keep(),           str(2, "topologyKey").keep(),
    str(3, "whenUnsatisfiable").keep(), message(4, "labelSelector", kLabelSelector),
    i32(5, "minDomains").keep(),        str(6, "nodeAffinityPolicy").keep(),
    str(7, "nodeTaintsPolicy").keep(),  repeated(str(8, "matchLabelKeys")),
};
constexpr MessageDescriptor kTopologySpreadConstraint{"TopologySpreadConstraint",
                                                      kTopologySpreadConstraintFields};

constexpr Field kHostAliasFields[] = {str(1, "ip").keep(), repeated(str(2, "hostnames"))};
constexpr MessageDescriptor kHostAlias{"HostAlias", kHostAliasFields};

constexpr Field kDnsConfigOptionFields[] = {str(1, "name"), str(2, "value").keep()};
constexpr MessageDescriptor kDnsConfigOption{"PodDNSConfigOption", kDnsConfigOptionFields};

constexpr Field kDnsConfigFields[] = {repeated(str(1, "nameservers")), repeated(str(2, "searches")),
                                      repeated(message(3, "options", kDnsConfigOption))};
constexpr MessageDescriptor kDnsConfig{"PodDNSConfig", kDnsConfigFields};

// PodReadinessGate {conditionType}, PodOS and PodSchedulingGate {name}: one required string.
constexpr Field kReadinessGateFields[] = {str(1, "conditionType").keep()};
constexpr MessageDescriptor kReadinessGate{"PodReadinessGate", kReadinessGateFields};
constexpr Field kNamedFields[] = {str(1, "name").keep()};
constexpr MessageDescriptor kNamed{"Named", kNamedFields};

constexpr Field kPodResourceClaimFields[] = {str(1, "name").keep(),
                                             str(3, "resourceClaimName").keep(),
                                             str(4, "resourceClaimTemplateName").keep()};
constexpr MessageDescriptor kPodResourceClaim{"PodResourceClaim", kPodResourceClaimFields};

constexpr Field kPodSpecFields[] = {
    repeated(message(1, "volumes", kVolume)),
    repeated(message(20, "initContainers", kContainer)),
    repeated(message(2, "containers", kContainer)),
    str(3, "restartPolicy"),
    i64(4, "terminationGracePeriodSeconds").keep(),
    i64(5, "activeDeadlineSeconds").keep(),
    str(6, "dnsPolicy"),
    mapOf(str(7, "nodeSelector")),
    str(8, "serviceAccountName"),
    str(9, "serviceAccount"),
    boolean(21, "automountServiceAccountToken").keep(),
    str(10, "nodeName"),
    boolean(11, "hostNetwork"),
    boolean(12, "hostPID"),
    boolean(13, "hostIPC"),
    boolean(27, "shareProcessNamespace").keep(),
    message(14, "securityContext", kPodSecurityContext),
    repeated(message(15, "imagePullSecrets", kLocalObjectReference)),
    str(16, "hostname"),
    str(17, "subdomain"),
    message(18, "affinity", kAffinity),
    str(19, "schedulerName"),
    repeated(message(22, "tolerations", kToleration)),
    repeated(message(23, "hostAliases", kHostAlias)),
    str(24, "priorityClassName"),
    i32(25, "priority").keep(),
    message(26, "dnsConfig", kDnsConfig),
    repeated(message(28, "readinessGates", kReadinessGate)),
    str(29, "runtimeClassName").keep(),
    boolean(30, "enableServiceLinks").keep(),
    str(31, "preemptionPolicy").keep(),
    mapOf(quantity(32, "overhead")),
    repeated(message(33, "topologySpreadConstraints", kTopologySpreadConstraint)),
    boolean(35, "setHostnameAsFQDN").keep(),
    message(36, "os", kNamed),
    boolean(37, "hostUsers").keep(),
    repeated(message(38, "schedulingGates", kNamed)),
    repeated(message(39, "resourceClaims", kPodResourceClaim)),
    message(40, "resources", kResourceRequirements),
    str(41, "hostnameOverride").keep(),
};

constexpr Field kPodConditionFields[] = {
    str(1, "type").keep(),    i64(7, "observedGeneration"),  str(2, "status").keep(),
    time(3, "lastProbeTime"), time(4, "lastTransitionTime"), str(5, "reason"),
    str(6, "message"),
};
constexpr MessageDescriptor kPodCondition{"PodCondition", kPodConditionFields};

constexpr Field kIpFields[] = {str(1, "ip").keep()};
constexpr MessageDescriptor kIp{"PodIP", kIpFields};

constexpr Field kPodStatusFields[] = {
    i64(17, "observedGeneration"),
    str(1, "phase"),
    repeated(message(2, "conditions", kPodCondition)),
    str(3, "message"),
    str(4, "reason"),
    str(11, "nominatedNodeName"),
    str(5, "hostIP"),
    repeated(message(16, "hostIPs", kIp)),
    str(6, "podIP"),
    repeated(message(12, "podIPs", kIp)),
    time(7, "startTime"),
    str(9, "qosClass"),
};
constexpr MessageDescriptor kPodStatus{"PodStatus", kPodStatusFields};

constexpr Field kPodFields[] = {
    message(1, "metadata", kObjectMeta),
    message(2, "spec", kPodSpec),
    message(3, "status", kPodStatus),
};

constexpr Field kPodTemplateSpecFields[] = {
    message(1, "metadata", kObjectMeta),
    message(2, "spec", kPodSpec),
};

}  // namespace

constinit const MessageDescriptor kPodSpec{"PodSpec", kPodSpecFields};
constinit const MessageDescriptor kPod{"Pod", kPodFields};
constinit const MessageDescriptor kPodTemplateSpec{"PodTemplateSpec", kPodTemplateSpecFields};

}  // namespace nodewright::apiserver::protobuf
