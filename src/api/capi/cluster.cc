#include "api/capi/cluster.h"

#include "api/capi/cidr.h"

namespace nodewright::api::capi {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

const StructSchema& describe(Tag<NetworkRanges>) {
  static const StructSchema s =
      StructBuilder<NetworkRanges>("NetworkRanges", "A set of network address ranges.")
          .field<&NetworkRanges::cidrBlocks>("cidrBlocks", "Address ranges in CIDR notation.")
          .required()
          .validate([](const NetworkRanges& r, const FieldPath& path, FieldErrors& errors) {
            for (size_t i = 0; i < r.cidrBlocks.size(); ++i) {
              if (!parseCidr(r.cidrBlocks[i])) {
                errors.push_back({path.child("cidrBlocks").index(i).str(),
                                  fielderr::invalid(Json(r.cidrBlocks[i]), "invalid CIDR format")});
              }
            }
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<ClusterNetwork>) {
  static const StructSchema s =
      StructBuilder<ClusterNetwork>("ClusterNetwork", "Network settings of the workload cluster.")
          .field<&ClusterNetwork::apiServerPort>(
              "apiServerPort", "Port the API server binds to; providers default it to 6443.")
          .min(1)
          .max(65535)
          .field<&ClusterNetwork::services>("services",
                                            "Ranges service virtual IPs are allocated from.")
          .field<&ClusterNetwork::pods>("pods", "Ranges pod networks are allocated from.")
          .field<&ClusterNetwork::serviceDomain>("serviceDomain",
                                                 "DNS domain of services, e.g. cluster.local.")
          .build();
  return s;
}

const StructSchema& describe(Tag<ClusterAvailabilityGate>) {
  static const StructSchema s =
      StructBuilder<ClusterAvailabilityGate>(
          "ClusterAvailabilityGate", "A Cluster condition that must be True for availability.")
          .field<&ClusterAvailabilityGate::conditionType>(
              "conditionType", "Type of the Cluster condition to require.")
          .required()
          .maxLength(316)
          .build();
  return s;
}

const StructSchema& describe(Tag<ClusterSpec>) {
  static const StructSchema s =
      StructBuilder<ClusterSpec>("ClusterSpec", "Desired state of a Cluster API cluster.")
          .field<&ClusterSpec::paused>(
              "paused", "Stops controllers from reconciling the cluster and everything in it.")
          .behavioral()
          .field<&ClusterSpec::clusterNetwork>("clusterNetwork",
                                               "Network settings of the workload cluster.")
          .field<&ClusterSpec::controlPlaneEndpoint>(
              "controlPlaneEndpoint", "Endpoint of the API server; usually set by the provider.")
          .field<&ClusterSpec::controlPlaneRef>(
              "controlPlaneRef", "Provider object that provisions the control plane.")
          .field<&ClusterSpec::infrastructureRef>(
              "infrastructureRef", "Provider object (e.g. an AzureCluster) for the infrastructure.")
          .field<&ClusterSpec::topology>("topology",
                                         "ClusterClass-managed topology, kept verbatim.")
          .field<&ClusterSpec::availabilityGates>(
              "availabilityGates", "Extra conditions that must be True for availability.")
          .mapList({"conditionType"})
          .maxItems(32)
          .build();
  return s;
}

const StructSchema& describe(Tag<ClusterStatus>) {
  static const StructSchema s =
      StructBuilder<ClusterStatus>("ClusterStatus", "Observed state of a Cluster API cluster.")
          .field<&ClusterStatus::failureDomains>(
              "failureDomains", "Failure domains reported by the infrastructure provider.")
          .field<&ClusterStatus::failureReason>(
              "failureReason", "Machine-readable reason for a terminal reconcile failure.")
          .field<&ClusterStatus::failureMessage>(
              "failureMessage", "Human-readable description of a terminal reconcile failure.")
          .field<&ClusterStatus::phase>(
              "phase", "Lifecycle phase: Pending, Provisioning, Provisioned, Deleting or Failed.")
          .field<&ClusterStatus::infrastructureReady>(
              "infrastructureReady", "Whether the infrastructure provider reports ready.")
          .field<&ClusterStatus::controlPlaneReady>(
              "controlPlaneReady", "Whether the control plane became ready during provisioning.")
          .field<&ClusterStatus::conditions>("conditions", "Current state of the cluster.")
          .field<&ClusterStatus::observedGeneration>(
              "observedGeneration", "The metadata.generation the controller last acted on.")
          .field<&ClusterStatus::v1beta2>(
              "v1beta2", "Status fields previewing the v1beta2 API, kept verbatim.")
          .validate([](const ClusterStatus& status, const FieldPath& path, FieldErrors& errors) {
            validateCapiConditions(status.conditions, path.child("conditions"), errors);
          })
          .build();
  return s;
}

namespace {

void defaultNamespace(std::optional<ObjectReference>& ref, const std::string& ns) {
  if (ref && !ref->name.empty() && ref->namespace_.empty()) {
    ref->namespace_ = ns;
  }
}

void checkNamespace(const std::optional<ObjectReference>& ref, const std::string& ns,
                    const FieldPath& path, FieldErrors& errors) {
  if (ref && !ns.empty() && ref->namespace_ != ns) {
    errors.push_back({path.child("namespace").str(),
                      fielderr::invalid(Json(ref->namespace_), "must match metadata.namespace")});
  }
}

}  // namespace

const StructSchema& describe(Tag<Cluster>) {
  static const StructSchema s = [] {
    StructBuilder<Cluster> b("Cluster", "A Cluster API workload cluster.");
    withTypeMeta(b);
    return b.field<&Cluster::spec>("spec", "Desired state of the cluster.")
        .field<&Cluster::status>("status", "Observed state of the cluster.")
        .defaults([](Cluster& c) {
          defaultNamespace(c.spec.infrastructureRef, c.metadata.namespace_);
          defaultNamespace(c.spec.controlPlaneRef, c.metadata.namespace_);
        })
        .validate([](const Cluster& c, const FieldPath& path, FieldErrors& errors) {
          FieldPath spec = path.child("spec");
          checkNamespace(c.spec.infrastructureRef, c.metadata.namespace_,
                         spec.child("infrastructureRef"), errors);
          checkNamespace(c.spec.controlPlaneRef, c.metadata.namespace_,
                         spec.child("controlPlaneRef"), errors);
        })
        .build();
  }();
  return s;
}

}  // namespace nodewright::api::capi
