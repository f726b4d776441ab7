#include "api/kubeadm/control_plane.h"

#include <regex>
#include <stdexcept>
#include <string>

#include "api/codec.h"

namespace nodewright::api::kubeadm {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

namespace {

// CAPI's webhook runs on the v1beta2 form of the object, so its paths name v1beta2 fields
// (spec.rollout.strategy, spec.machineTemplate.infrastructure); they are kept so that the
// messages match a real management cluster's.
void validateReplicas(const KubeadmControlPlaneSpec& spec, const FieldPath& path,
                      FieldErrors& errors) {
  FieldPath replicas = path.child("replicas");
  if (!spec.replicas) {
    errors.push_back({replicas.str(), fielderr::required() + ": is required"});
    return;
  }
  if (*spec.replicas <= 0) {
    errors.push_back({replicas.str(), fielderr::forbidden("cannot be less than or equal to 0")});
  }
  bool externalEtcd = spec.kubeadmConfigSpec.clusterConfiguration &&
                      spec.kubeadmConfigSpec.clusterConfiguration->etcd.external;
  // Stacked etcd needs an odd member count to keep a majority through one failure.
  if (!externalEtcd && *spec.replicas % 2 == 0) {
    errors.push_back(
        {replicas.str(), fielderr::forbidden("cannot be an even number when etcd is stacked")});
  }
}

void validateInfrastructureRef(const ObjectReference& ref, const FieldPath& path,
                               FieldErrors& errors) {
  FieldPath infra = path.child("machineTemplate").child("infrastructure");
  // v1beta2 references name the API group; v1beta1 ones carry it in apiVersion.
  size_t slash = ref.apiVersion.rfind('/');
  std::string group = slash == std::string::npos ? "" : ref.apiVersion.substr(0, slash);
  if (group.empty()) {
    errors.push_back(
        {infra.child("apiGroup").str(), fielderr::invalid(Json(group), "cannot be empty")});
  }
  if (ref.kind.empty()) {
    errors.push_back(
        {infra.child("kind").str(), fielderr::invalid(Json(ref.kind), "cannot be empty")});
  }
  if (ref.name.empty()) {
    errors.push_back(
        {infra.child("name").str(), fielderr::invalid(Json(ref.name), "cannot be empty")});
  }
}

void validateRollout(const KubeadmControlPlaneSpec& spec, const FieldPath& path,
                     FieldErrors& errors) {
  if (!spec.rolloutStrategy) {
    return;
  }
  FieldPath strategy = path.child("rollout").child("strategy");
  if (spec.rolloutStrategy->type != "RollingUpdate") {
    errors.push_back(
        {strategy.child("type").str(), fielderr::required() + ": only RollingUpdate is supported"});
  }
  const auto& rolling = spec.rolloutStrategy->rollingUpdate;
  if (!rolling || !rolling->maxSurge) {
    return;
  }
  // Go's IntValue: the integer, or a string parsed as one (0 when it does not parse).
  const IntOrString& surge = *rolling->maxSurge;
  int64_t value = 0;
  if (!surge.isString) {
    value = surge.intValue;
  } else {
    try {
      value = std::stoll(surge.stringValue);
    } catch (const std::exception&) {
      value = 0;
    }
  }
  if (value == 0 && spec.replicas && *spec.replicas < 3) {
    errors.push_back({strategy.child("rollingUpdate").str(),
                      fielderr::required() +
                          ": when KubeadmControlPlane is configured to scale-in, replica count "
                          "needs to be at least 3"});
  }
  if (value != 0 && value != 1) {
    errors.push_back({strategy.child("rollingUpdate").child("maxSurge").str(),
                      fielderr::required() + ": value must be 1 or 0"});
  }
}

// CAPI's default CA lifetime when caCertificateValidityPeriodDays is not set.
constexpr int32_t kDefaultCACertificatesExpiryDays = 3650;

void validateCertificateValidity(const KubeadmControlPlaneSpec& spec, const FieldPath& path,
                                 FieldErrors& errors) {
  const auto& config = spec.kubeadmConfigSpec.clusterConfiguration;
  if (!config || !config->certificateValidityPeriodDays) {
    return;
  }
  int32_t days = *config->certificateValidityPeriodDays;
  FieldPath field = path.child("kubeadmConfigSpec")
                        .child("clusterConfiguration")
                        .child("certificateValidityPeriodDays");
  if (config->caCertificateValidityPeriodDays) {
    if (days > *config->caCertificateValidityPeriodDays) {
      errors.push_back(
          {field.str(),
           fielderr::invalid(Json(days),
                             "must be less than or equal to "
                             "caCertificateValidityPeriodDays (" +
                                 std::to_string(*config->caCertificateValidityPeriodDays) + ")")});
    }
  } else if (days > kDefaultCACertificatesExpiryDays) {
    errors.push_back(
        {field.str(), fielderr::invalid(Json(days),
                                        "must be less than or equal to the default value of "
                                        "caCertificateValidityPeriodDays (3650)")});
  }
  if (spec.rolloutBefore && spec.rolloutBefore->certificatesExpiryDays &&
      *spec.rolloutBefore->certificatesExpiryDays >= days) {
    errors.push_back({path.child("rollout").child("before").child("certificatesExpiryDays").str(),
                      fielderr::invalid(Json(*spec.rolloutBefore->certificatesExpiryDays),
                                        "must be less than certificateValidityPeriodDays (" +
                                            std::to_string(days) + ")")});
  }
}

bool isImageTag(const std::string& tag) {
  static const std::regex re(R"(^[\w][\w.-]{0,127}$)");
  return std::regex_match(tag, re);
}

void validateClusterConfiguration(const KubeadmControlPlaneSpec& spec, const FieldPath& path,
                                  FieldErrors& errors) {
  const auto& config = spec.kubeadmConfigSpec.clusterConfiguration;
  if (!config) {
    return;
  }
  FieldPath at = path.child("kubeadmConfigSpec").child("clusterConfiguration");
  if (!config->dns.imageTag.empty() && !isImageTag(config->dns.imageTag)) {
    errors.push_back({at.child("dns").child("imageTag").str(),
                      fielderr::forbidden("tag " + config->dns.imageTag + " is invalid")});
  }
  if (config->etcd.local && !config->etcd.local->imageTag.empty() &&
      !isImageTag(config->etcd.local->imageTag)) {
    errors.push_back({at.child("etcd").child("local").child("imageTag").str(),
                      fielderr::forbidden("tag " + config->etcd.local->imageTag + " is invalid")});
  }
  if (config->etcd.local && config->etcd.external) {
    errors.push_back({at.child("etcd").child("local").str(),
                      fielderr::forbidden("cannot have both external and local etcd")});
  }
}

}  // namespace

const StructSchema& describe(Tag<KubeadmControlPlaneMachineTemplate>) {
  static const StructSchema s =
      StructBuilder<KubeadmControlPlaneMachineTemplate>(
          "KubeadmControlPlaneMachineTemplate", "What every control-plane Machine is made of.")
          .field<&KubeadmControlPlaneMachineTemplate::metadata>(
              "metadata", "Labels and annotations of the control-plane Machines.")
          .field<&KubeadmControlPlaneMachineTemplate::infrastructureRef>(
              "infrastructureRef", "The infrastructure template the Machines are cloned from.")
          .required()
          .field<&KubeadmControlPlaneMachineTemplate::readinessGates>(
              "readinessGates", "Conditions that must be True before a Machine counts ready.")
          .maxItems(32)
          .field<&KubeadmControlPlaneMachineTemplate::nodeDrainTimeout>(
              "nodeDrainTimeout", "How long a node may take to drain; 0 means forever.")
          .field<&KubeadmControlPlaneMachineTemplate::nodeVolumeDetachTimeout>(
              "nodeVolumeDetachTimeout", "How long volumes may take to detach; 0 means forever.")
          .field<&KubeadmControlPlaneMachineTemplate::nodeDeletionTimeout>(
              "nodeDeletionTimeout", "How long to retry deleting the Node; defaults to 10s.")
          .build();
  return s;
}

const StructSchema& describe(Tag<RolloutBefore>) {
  static const StructSchema s =
      StructBuilder<RolloutBefore>("RolloutBefore", "When Machines are replaced ahead of time.")
          .field<&RolloutBefore::certificatesExpiryDays>(
              "certificatesExpiryDays",
              "Replace a Machine this many days before its "
              "certificates expire (at least 7).")
          .min(7)
          .build();
  return s;
}

const StructSchema& describe(Tag<RollingUpdate>) {
  static const StructSchema s =
      StructBuilder<RollingUpdate>("RollingUpdate", "Bounds of a rolling update.")
          .field<&RollingUpdate::maxSurge>(
              "maxSurge", "Machines above the desired count during a rollout: 1 or 0.")
          .build();
  return s;
}

const StructSchema& describe(Tag<RolloutStrategy>) {
  static const StructSchema s =
      StructBuilder<RolloutStrategy>("RolloutStrategy", "How control-plane Machines are replaced.")
          .field<&RolloutStrategy::type>("type", "Only RollingUpdate.")
          .enums({"RollingUpdate"})
          .field<&RolloutStrategy::rollingUpdate>("rollingUpdate", "Bounds of the rolling update.")
          .build();
  return s;
}

const StructSchema& describe(Tag<RemediationStrategy>) {
  static const StructSchema s =
      StructBuilder<RemediationStrategy>("RemediationStrategy",
                                         "How unhealthy control-plane Machines are remediated.")
          .field<&RemediationStrategy::maxRetry>(
              "maxRetry", "Remediations of the same Machine before giving up; unlimited if unset.")
          .field<&RemediationStrategy::retryPeriod>(
              "retryPeriod", "Wait before remediating the replacement of a remediated Machine.")
          .field<&RemediationStrategy::minHealthyPeriod>(
              "minHealthyPeriod",
              "A Machine healthy this long resets the retry count; default "
              "1h.")
          .build();
  return s;
}

const StructSchema& describe(Tag<KubeadmControlPlaneSpec>) {
  static const StructSchema s =
      StructBuilder<KubeadmControlPlaneSpec>("KubeadmControlPlaneSpec",
                                             "Desired state of a KubeadmControlPlane.")
          .field<&KubeadmControlPlaneSpec::replicas>(
              "replicas", "Number of control-plane Machines; odd with stacked etcd; default 1.")
          .behavioral()
          .field<&KubeadmControlPlaneSpec::version>("version", "Kubernetes version to run.")
          .required()
          .maxLength(256)
          .field<&KubeadmControlPlaneSpec::machineTemplate>("machineTemplate",
                                                            "The control-plane Machines.")
          .required()
          .field<&KubeadmControlPlaneSpec::kubeadmConfigSpec>(
              "kubeadmConfigSpec", "The kubeadm configuration of every control-plane Machine.")
          .field<&KubeadmControlPlaneSpec::rolloutBefore>(
              "rolloutBefore", "When Machines are replaced ahead of time.")
          .field<&KubeadmControlPlaneSpec::rolloutAfter>(
              "rolloutAfter", "Replace every Machine created before this time.")
          .field<&KubeadmControlPlaneSpec::rolloutStrategy>("rolloutStrategy",
                                                            "How Machines are replaced.")
          .field<&KubeadmControlPlaneSpec::remediationStrategy>(
              "remediationStrategy", "How unhealthy Machines are remediated.")
          .field<&KubeadmControlPlaneSpec::machineNamingStrategy>(
              "machineNamingStrategy", "How the names of created Machines are generated.")
          .build();
  return s;
}

const StructSchema& describe(Tag<LastRemediationStatus>) {
  static const StructSchema s =
      StructBuilder<LastRemediationStatus>("LastRemediationStatus", "The most recent remediation.")
          .field<&LastRemediationStatus::machine>("machine", "The remediated Machine.")
          .required()
          .maxLength(253)
          .field<&LastRemediationStatus::timestamp>("timestamp", "When it was remediated.")
          .required()
          .field<&LastRemediationStatus::retryCount>("retryCount",
                                                     "Remediations of that Machine's lineage.")
          .build();
  return s;
}

const StructSchema& describe(Tag<KubeadmControlPlaneStatus>) {
  static const StructSchema s =
      StructBuilder<KubeadmControlPlaneStatus>("KubeadmControlPlaneStatus",
                                               "Observed state of a KubeadmControlPlane.")
          .field<&KubeadmControlPlaneStatus::selector>(
              "selector",
              "The Machine selector in query-parameter form, for the scale "
              "subresource.")
          .maxLength(4096)
          .field<&KubeadmControlPlaneStatus::replicas>("replicas",
                                                       "Non-terminated control-plane Machines.")
          .field<&KubeadmControlPlaneStatus::version>(
              "version", "The oldest Kubernetes version among the Machines.")
          .maxLength(256)
          .field<&KubeadmControlPlaneStatus::updatedReplicas>(
              "updatedReplicas", "Machines that already have the desired spec.")
          .field<&KubeadmControlPlaneStatus::readyReplicas>("readyReplicas",
                                                            "Machines whose node is Ready.")
          .field<&KubeadmControlPlaneStatus::unavailableReplicas>(
              "unavailableReplicas", "Machines still needed for full availability.")
          .field<&KubeadmControlPlaneStatus::initialized>(
              "initialized", "kubeadm init has completed and the kubeadm-config ConfigMap exists.")
          .field<&KubeadmControlPlaneStatus::ready>("ready", "The API server answers requests.")
          .field<&KubeadmControlPlaneStatus::failureReason>("failureReason",
                                                            "Terminal problem, for machines.")
          .field<&KubeadmControlPlaneStatus::failureMessage>("failureMessage",
                                                             "Terminal problem, for humans.")
          .maxLength(10240)
          .field<&KubeadmControlPlaneStatus::observedGeneration>(
              "observedGeneration", "The metadata.generation the controller last acted on.")
          .field<&KubeadmControlPlaneStatus::conditions>("conditions",
                                                         "Current state of the control plane.")
          .field<&KubeadmControlPlaneStatus::lastRemediation>("lastRemediation",
                                                              "The most recent remediation.")
          .field<&KubeadmControlPlaneStatus::versions>(
              "versions", "Machines per Kubernetes version, kept verbatim.")
          .field<&KubeadmControlPlaneStatus::v1beta2>(
              "v1beta2", "Status fields previewing the v1beta2 API, kept verbatim.")
          .validate([](const KubeadmControlPlaneStatus& status, const FieldPath& path,
                       FieldErrors& errors) {
            capi::validateCapiConditions(status.conditions, path.child("conditions"), errors);
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<KubeadmControlPlane>) {
  static const StructSchema s = [] {
    StructBuilder<KubeadmControlPlane> b(
        "KubeadmControlPlane", "The kubeadm-bootstrapped control-plane Machines of a Cluster.");
    withTypeMeta(b);
    return b.field<&KubeadmControlPlane::spec>("spec", "Desired state of the control plane.")
        .field<&KubeadmControlPlane::status>("status", "Observed state of the control plane.")
        .defaults([](KubeadmControlPlane& kcp) {
          KubeadmControlPlaneSpec& spec = kcp.spec;
          if (!spec.replicas) {
            spec.replicas = 1;
          }
          if (spec.version.rfind('v', 0) != 0) {
            spec.version = "v" + spec.version;
          }
          // The CRD default and the webhook both settle on RollingUpdate with a surge of 1.
          if (!spec.rolloutStrategy) {
            spec.rolloutStrategy.emplace();
          }
          spec.rolloutStrategy->type = "RollingUpdate";
          if (!spec.rolloutStrategy->rollingUpdate) {
            spec.rolloutStrategy->rollingUpdate.emplace();
          }
          if (!spec.rolloutStrategy->rollingUpdate->maxSurge) {
            spec.rolloutStrategy->rollingUpdate->maxSurge = IntOrString::ofInt(1);
          }
          defaultKubeadmConfigSpec(spec.kubeadmConfigSpec);
        })
        .validate([](const KubeadmControlPlane& kcp, const FieldPath& path, FieldErrors& errors) {
          FieldPath spec = path.child("spec");
          validateReplicas(kcp.spec, spec, errors);
          validateInfrastructureRef(kcp.spec.machineTemplate.infrastructureRef, spec, errors);
          if (!capi::isKubeSemver(kcp.spec.version)) {
            errors.push_back(
                {spec.child("version").str(),
                 fielderr::invalid(Json(kcp.spec.version), "must be a valid semantic version")});
          }
          validateRollout(kcp.spec, spec, errors);
          validateCertificateValidity(kcp.spec, spec, errors);
          if (kcp.spec.machineNamingStrategy &&
              !kcp.spec.machineNamingStrategy->template_.empty() &&
              kcp.spec.machineNamingStrategy->template_.find("{{ .random }}") ==
                  std::string::npos) {
            errors.push_back({spec.child("machineNaming").child("template").str(),
                              fielderr::invalid(Json(kcp.spec.machineNamingStrategy->template_),
                                                "invalid template, {{ .random }} is missing")});
          }
          validateClusterConfiguration(kcp.spec, spec, errors);
          validateKubeadmConfigSpec(kcp.spec.kubeadmConfigSpec, spec.child("kubeadmConfigSpec"),
                                    errors);
        })
        .build();
  }();
  return s;
}

}  // namespace nodewright::api::kubeadm
