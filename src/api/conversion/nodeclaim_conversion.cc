#include "api/conversion/nodeclaim_conversion.h"

#include <chrono>

#include "api/conversion/annotations.h"

namespace nodewright::api::conversion {
namespace {

constexpr const char* kAwsGroup = "karpenter.k8s.aws";
constexpr const char* kNodeClassKind = "EC2NodeClass";
constexpr const char* kNodeTemplateKind = "AWSNodeTemplate";
constexpr const char* kNodeClaimTarget = "karpenter.sh/v1 NodeClaim";

const std::map<std::string, std::string>& conditionRenames() {
  static const std::map<std::string, std::string> renames = {
      {"MachineLaunched", "Launched"},       {"MachineRegistered", "Registered"},
      {"MachineInitialized", "Initialized"}, {"MachineEmpty", "Empty"},
      {"MachineExpired", "Expired"},         {"MachineDrifted", "Drifted"},
  };
  return renames;
}

}  // namespace

Converted<karpenter::NodeClaim> toNodeClaim(const seedera::Machine& machine) {
  FieldErrors errors;
  const FieldPath spec("spec");
  const seedera::MachineSpec& m = machine.spec;
  karpenter::NodeClaim claim;
  claim.apiVersion = kV1;
  claim.kind = "NodeClaim";
  claim.metadata = machine.metadata;

  claim.spec.taints = toV1(m.taints);
  claim.spec.startupTaints = toV1(m.startupTaints);
  claim.spec.requirements = toV1(m.requirements);
  claim.spec.resources.requests = m.resources.requests;
  claim.spec.kubelet = toV1(m.kubelet, spec.child("kubelet"), errors);
  if (m.machineTemplateRef) {
    const seedera::ProviderRef& ref = *m.machineTemplateRef;
    const FieldPath refPath = spec.child("machineTemplateRef");
    if (!ref.kind.empty() && ref.kind != kNodeTemplateKind) {
      errors.push_back({refPath.child("kind").str(),
                        fielderr::unsupported(Json(ref.kind), {kNodeTemplateKind})});
    }
    if (!ref.apiVersion.empty() && ref.apiVersion != kV1Alpha1Aws) {
      errors.push_back({refPath.child("apiVersion").str(),
                        fielderr::unsupported(Json(ref.apiVersion), {kV1Alpha1Aws})});
    }
    claim.spec.nodeClassRef = {kAwsGroup, kNodeClassKind, ref.name};
    if (!ref.kind.empty() || !ref.apiVersion.empty()) {
      Json original = Json::object();
      if (!ref.apiVersion.empty()) {
        original["apiVersion"] = ref.apiVersion;
      }
      if (!ref.kind.empty()) {
        original["kind"] = ref.kind;
      }
      claim.metadata.annotations[kMachineTemplateRefAnnotation] = original.dump();
    }
  }

  const seedera::MachineStatus& st = machine.status;
  claim.status.nodeName = st.nodeName;
  claim.status.providerID = st.providerID;
  claim.status.capacity = st.capacity;
  claim.status.allocatable = st.allocatable;
  Json severities = Json::object();
  claim.status.conditions = toV1(st.conditions, conditionRenames(), severities);
  if (!severities.empty()) {
    claim.metadata.annotations[kConditionSeveritiesAnnotation] = severities.dump();
  }
  if (!errors.empty()) {
    return failed(std::move(errors));
  }
  return checkLossless(machine, std::move(claim), toMachine, kNodeClaimTarget);
}

Converted<seedera::Machine> toMachine(const karpenter::NodeClaim& nodeClaim) {
  FieldErrors errors;
  const FieldPath spec("spec");
  const karpenter::NodeClaimSpec& c = nodeClaim.spec;
  seedera::Machine out;
  out.apiVersion = kV1Alpha5;
  out.kind = "Machine";
  out.metadata = nodeClaim.metadata;
  std::optional<Json> refMeta =
      takeJsonAnnotation(out.metadata, kMachineTemplateRefAnnotation, errors);
  std::optional<Json> severities =
      takeJsonAnnotation(out.metadata, kConditionSeveritiesAnnotation, errors);
  dropConversionAnnotations(out.metadata);

  seedera::MachineSpec& m = out.spec;
  m.taints = toSeedEra(c.taints);
  m.startupTaints = toSeedEra(c.startupTaints);
  m.requirements = toSeedEra(c.requirements, spec.child("requirements"), errors);
  m.resources.requests = c.resources.requests;
  m.kubelet = toSeedEra(c.kubelet, spec.child("kubelet"), errors);
  const karpenter::NodeClassReference& ref = c.nodeClassRef;
  if (!ref.group.empty() || !ref.kind.empty() || !ref.name.empty()) {
    const FieldPath refPath = spec.child("nodeClassRef");
    if (ref.group != kAwsGroup) {
      errors.push_back(
          {refPath.child("group").str(), fielderr::unsupported(Json(ref.group), {kAwsGroup})});
    }
    if (ref.kind != kNodeClassKind) {
      errors.push_back(
          {refPath.child("kind").str(), fielderr::unsupported(Json(ref.kind), {kNodeClassKind})});
    }
    seedera::ProviderRef machineTemplateRef;
    machineTemplateRef.name = ref.name;
    if (refMeta && refMeta->is_object()) {
      machineTemplateRef.apiVersion = refMeta->value("apiVersion", "");
      machineTemplateRef.kind = refMeta->value("kind", "");
    }
    m.machineTemplateRef = machineTemplateRef;
  }
  // A Machine expired with its Provisioner's ttl; only the v1 default can be left unsaid.
  const core::Duration kDefaultExpiry(std::chrono::hours(720));
  if (c.expireAfter && *c.expireAfter != kDefaultExpiry) {
    errors.push_back(noEquivalent(spec.child("expireAfter"), kV1Alpha5,
                                  "set ttlSecondsUntilExpired on the Provisioner instead"));
  }
  if (c.terminationGracePeriod) {
    errors.push_back(noEquivalent(spec.child("terminationGracePeriod"), kV1Alpha5));
  }

  const karpenter::NodeClaimStatus& st = nodeClaim.status;
  out.status.nodeName = st.nodeName;
  out.status.providerID = st.providerID;
  out.status.capacity = st.capacity;
  out.status.allocatable = st.allocatable;
  out.status.conditions =
      toSeedEra(st.conditions, conditionRenames(), severities.value_or(Json::object()));
  if (!errors.empty()) {
    return failed(std::move(errors));
  }
  return out;
}

}  // namespace nodewright::api::conversion
