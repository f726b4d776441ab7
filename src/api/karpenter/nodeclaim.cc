#include "api/karpenter/nodeclaim.h"

#include "api/karpenter/rules.h"

namespace nodewright::api::karpenter {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

const StructSchema& describe(Tag<ResourceRequirements>) {
  using R = ResourceRequirements;
  static const StructSchema s =
      StructBuilder<R>("ResourceRequirements", "Resources the NodeClaim must provide.")
          .field<&R::requests>("requests",
                               "Minimum resources the launched node must have: the pods' "
                               "requests plus daemonset overhead.")
          .build();
  return s;
}

const StructSchema& describe(Tag<NodeClaimSpec>) {
  using S = NodeClaimSpec;
  static const StructSchema s =
      StructBuilder<S>("NodeClaimSpec", "The desired state of one requested node.")
          .field<&S::taints>("taints", "Taints applied to the node.")
          .setList()
          .field<&S::startupTaints>("startupTaints",
                                    "Taints applied at startup and expected to be removed by a "
                                    "daemon.")
          .setList()
          .field<&S::requirements>("requirements",
                                   "Constraints the launched instance must satisfy.")
          .dynamic()
          .setList()
          .maxItems(100)
          .field<&S::resources>("resources", "Resources the node must provide.")
          .behavioral()
          .field<&S::nodeClassRef>("nodeClassRef",
                                   "The cloud provider node class with the instance settings.")
          .required()
          .field<&S::expireAfter>("expireAfter",
                                  "How long the node lives before it is replaced, measured from "
                                  "creation, or Never.")
          .behavioral()
          .pattern("^(([0-9]+(s|m|h))+|Never)$")
          .defaultsTo(Json("720h"))
          .field<&S::terminationGracePeriod>(
              "terminationGracePeriod",
              "Longest time the draining node waits for its pods before deleting them "
              "forcefully; unset waits indefinitely.")
          .behavioral()
          .pattern("^([0-9]+(s|m|h))+$")
          .field<&S::kubelet>("kubelet", "Kubelet settings for the node.")
          .validate([](const S& s, const FieldPath& p, FieldErrors& errs) {
            rules::validateRequirementList(s.requirements, p.child("requirements"), errs);
            rules::checkDuration(s.expireAfter, rules::DurationRule::SecondsOrNever,
                                 p.child("expireAfter"), errs);
            rules::checkDuration(s.terminationGracePeriod, rules::DurationRule::Seconds,
                                 p.child("terminationGracePeriod"), errs);
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<NodeClaimStatus>) {
  using S = NodeClaimStatus;
  static const StructSchema s =
      StructBuilder<S>("NodeClaimStatus", "Observed state of the NodeClaim.")
          .field<&S::nodeName>("nodeName", "Name of the node that registered for this claim.")
          .field<&S::providerID>("providerID", "Cloud provider ID of the launched instance.")
          .field<&S::imageID>("imageID", "Image the instance was launched from.")
          .field<&S::capacity>("capacity", "Total resources of the instance.")
          .field<&S::allocatable>("allocatable", "Resources available to pods on the node.")
          .field<&S::conditions>("conditions", "Signals for launch, registration and readiness.")
          .field<&S::lastPodEventTime>(
              "lastPodEventTime",
              "Last time a pod was scheduled to or removed from the node; drives consolidateAfter.")
          .validate([](const S& st, const FieldPath& p, FieldErrors& errs) {
            rules::validateConditions(st.conditions, p.child("conditions"), errs);
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<NodeClaim>) {
  static const StructSchema s = [] {
    StructBuilder<NodeClaim> b("NodeClaim",
                               "A request for one node, launched by the cloud provider and "
                               "registered with the cluster.");
    withTypeMeta(b);
    return b.field<&NodeClaim::spec>("spec", "Desired state of the NodeClaim; immutable.")
        .required()
        .field<&NodeClaim::status>("status", "Observed state of the NodeClaim.")
        .build();
  }();
  return s;
}

}  // namespace nodewright::api::karpenter
