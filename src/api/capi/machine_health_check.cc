#include "api/capi/machine_health_check.h"

#include <chrono>
#include <regex>

#include "api/codec.h"

namespace nodewright::api::capi {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

namespace {

// CAPI's webhook default and floor for the node startup timeout; 0 disables the check.
constexpr std::chrono::minutes kDefaultNodeStartupTimeout{10};
constexpr std::chrono::seconds kMinNodeStartupTimeout{30};

// CAPI's webhook runs on the v1beta2 form, so its paths name v1beta2 fields
// (checks.nodeStartupTimeoutSeconds, remediation.triggerIf.unhealthyLessThanOrEqualTo); kept
// for identical messages.
void validateSpec(const MachineHealthCheckSpec& spec, const FieldPath& path, FieldErrors& errors) {
  if (spec.selector.empty()) {
    errors.push_back(
        {path.child("selector").str(), fielderr::required() + ": selector must not be empty"});
  }
  auto cluster = spec.selector.matchLabels.find(kClusterNameLabel);
  if (cluster != spec.selector.matchLabels.end() && cluster->second != spec.clusterName) {
    errors.push_back({path.child("selector").str(),
                      fielderr::invalid(toJson(spec.selector),
                                        "cannot specify a cluster selector other than the one "
                                        "specified by ClusterName")});
  }
  if (spec.nodeStartupTimeout) {
    auto timeout = spec.nodeStartupTimeout->value();
    if (timeout.count() != 0 && timeout < kMinNodeStartupTimeout) {
      int64_t seconds = std::chrono::duration_cast<std::chrono::seconds>(timeout).count();
      errors.push_back({path.child("checks").child("nodeStartupTimeoutSeconds").str(),
                        fielderr::invalid(Json(seconds), "must be at least 30s")});
    }
  }
  if (spec.maxUnhealthy && spec.maxUnhealthy->isString) {
    static const std::regex percent(R"(^[0-9]+%$)");
    if (!std::regex_match(spec.maxUnhealthy->stringValue, percent)) {
      errors.push_back(
          {path.child("remediation").child("triggerIf").child("unhealthyLessThanOrEqualTo").str(),
           fielderr::invalid(Json(spec.maxUnhealthy->stringValue),
                             "must be either an int or a percentage: invalid value "
                             "for IntOrString: invalid type: string is not a "
                             "percentage")});
    }
  }
  if (spec.unhealthyRange) {
    static const std::regex range(R"(^\[[0-9]+-[0-9]+\]$)");
    if (!std::regex_match(*spec.unhealthyRange, range)) {
      std::string at = path.child("unhealthyRange").str();
      errors.push_back(
          {at, fielderr::invalid(Json(*spec.unhealthyRange),
                                 at + " in body should match '^\\[[0-9]+-[0-9]+\\]$'")});
    }
  }
}

}  // namespace

const StructSchema& describe(Tag<UnhealthyCondition>) {
  static const StructSchema s =
      StructBuilder<UnhealthyCondition>("UnhealthyCondition",
                                        "A Node condition that makes the Machine unhealthy.")
          .field<&UnhealthyCondition::type>("type", "Type of the Node condition, e.g. Ready.")
          .required()
          .field<&UnhealthyCondition::status>("status", "Status that counts: True, False, Unknown.")
          .required()
          .field<&UnhealthyCondition::timeout>("timeout", "How long the status must hold.")
          .required()
          .build();
  return s;
}

const StructSchema& describe(Tag<UnhealthyMachineCondition>) {
  static const StructSchema s =
      StructBuilder<UnhealthyMachineCondition>(
          "UnhealthyMachineCondition", "A Machine condition that makes the Machine unhealthy.")
          .field<&UnhealthyMachineCondition::type>("type", "Type of the Machine condition.")
          .required()
          .maxLength(316)
          .field<&UnhealthyMachineCondition::status>("status", "Status that counts.")
          .required()
          .enums({"True", "False", "Unknown"})
          .field<&UnhealthyMachineCondition::timeout>("timeout", "How long the status must hold.")
          .required()
          .validate([](const UnhealthyMachineCondition& c, const FieldPath& path,
                       FieldErrors& errors) {
            // CAPI's CEL rule: the conditions CAPI itself sets cannot be health checks.
            for (const char* own : {"Ready", "Available", "HealthCheckSucceeded", "OwnerRemediated",
                                    "ExternallyRemediated"}) {
              if (c.type == own) {
                errors.push_back({path.child("type").str(),
                                  fielderr::invalid(Json(c.type),
                                                    "type must not be one of: Ready, Available, "
                                                    "HealthCheckSucceeded, OwnerRemediated, "
                                                    "ExternallyRemediated")});
              }
            }
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<MachineHealthCheckSpec>) {
  static const StructSchema s =
      StructBuilder<MachineHealthCheckSpec>("MachineHealthCheckSpec",
                                            "Desired state of a MachineHealthCheck.")
          .field<&MachineHealthCheckSpec::clusterName>("clusterName",
                                                       "Name of the Cluster the check belongs to.")
          .required()
          .maxLength(63)
          .field<&MachineHealthCheckSpec::selector>("selector", "The Machines to check.")
          .field<&MachineHealthCheckSpec::unhealthyConditions>(
              "unhealthyConditions", "Node conditions that make a Machine unhealthy.")
          .maxItems(100)
          .field<&MachineHealthCheckSpec::unhealthyMachineConditions>(
              "unhealthyMachineConditions", "Machine conditions that make a Machine unhealthy.")
          .maxItems(100)
          .field<&MachineHealthCheckSpec::maxUnhealthy>(
              "maxUnhealthy", "Remediation stops while more Machines than this are unhealthy.")
          .field<&MachineHealthCheckSpec::unhealthyRange>(
              "unhealthyRange", "Remediation only while the unhealthy count is in \"[min-max]\".")
          .maxLength(32)
          .field<&MachineHealthCheckSpec::nodeStartupTimeout>(
              "nodeStartupTimeout",
              "How long a Machine may take to get a Node; 0 disables; "
              "default 10m, at least 30s.")
          .field<&MachineHealthCheckSpec::remediationTemplate>(
              "remediationTemplate", "An external remediation template used instead of deletion.")
          .build();
  return s;
}

const StructSchema& describe(Tag<MachineHealthCheckStatus>) {
  static const StructSchema s =
      StructBuilder<MachineHealthCheckStatus>("MachineHealthCheckStatus",
                                              "Observed state of a MachineHealthCheck.")
          .field<&MachineHealthCheckStatus::expectedMachines>("expectedMachines",
                                                              "Machines the selector matches.")
          .min(0)
          .field<&MachineHealthCheckStatus::currentHealthy>("currentHealthy",
                                                            "Of those, the healthy ones.")
          .min(0)
          .field<&MachineHealthCheckStatus::remediationsAllowed>(
              "remediationsAllowed", "Remediations allowed before maxUnhealthy stops them.")
          .min(0)
          .field<&MachineHealthCheckStatus::observedGeneration>(
              "observedGeneration", "The metadata.generation the controller last acted on.")
          .field<&MachineHealthCheckStatus::targets>("targets", "Names of the checked Machines.")
          .maxItems(10000)
          .maxLength(253)
          .field<&MachineHealthCheckStatus::conditions>("conditions", "Current state of the check.")
          .field<&MachineHealthCheckStatus::v1beta2>(
              "v1beta2", "Status fields previewing the v1beta2 API, kept verbatim.")
          .validate([](const MachineHealthCheckStatus& status, const FieldPath& path,
                       FieldErrors& errors) {
            validateCapiConditions(status.conditions, path.child("conditions"), errors);
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<MachineHealthCheck>) {
  static const StructSchema s = [] {
    StructBuilder<MachineHealthCheck> b("MachineHealthCheck",
                                        "Health checks and remediation limits for Machines.");
    withTypeMeta(b);
    return b.field<&MachineHealthCheck::spec>("spec", "Desired state of the MachineHealthCheck.")
        .field<&MachineHealthCheck::status>("status", "Observed state of the MachineHealthCheck.")
        .defaults([](MachineHealthCheck& mhc) {
          mhc.metadata.labels[kClusterNameLabel] = mhc.spec.clusterName;
          if (!mhc.spec.nodeStartupTimeout) {
            mhc.spec.nodeStartupTimeout = core::Duration(kDefaultNodeStartupTimeout);
          }
        })
        .validate([](const MachineHealthCheck& mhc, const FieldPath& path, FieldErrors& errors) {
          validateSpec(mhc.spec, path.child("spec"), errors);
        })
        .build();
  }();
  return s;
}

}  // namespace nodewright::api::capi
