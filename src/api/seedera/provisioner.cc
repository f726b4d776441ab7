#include "api/seedera/provisioner.h"

namespace nodewright::api::seedera {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

namespace {

constexpr const char* kProvisionerNameLabel = "karpenter.sh/provisioner-name";

// A field that seed 002 moves under spec.template may be written in either place, not both.
template <class V>
void checkOneForm(const V& flat, const V& nested, std::string_view name, const FieldPath& spec,
                  FieldErrors& errors) {
  auto isSet = [](const V& v) {
    if constexpr (requires { v.has_value(); }) {
      return v.has_value();
    } else {
      return !v.empty();
    }
  };
  if (isSet(flat) && isSet(nested)) {
    const std::string flatPath = spec.child(name).str();
    const std::string nestedPath = spec.child("template").child(name).str();
    errors.push_back({nestedPath, fielderr::forbidden(flatPath + " and " + nestedPath +
                                                      " are both set; set only one of them")});
  }
}

void validateSpec(const ProvisionerSpec& s, const FieldPath& path, FieldErrors& errs) {
  const ProvisionerTemplate empty;
  const ProvisionerTemplate& t = s.template_ ? *s.template_ : empty;
  checkOneForm(s.requirements, t.requirements, "requirements", path, errs);
  checkOneForm(s.labels, t.labels, "labels", path, errs);
  checkOneForm(s.taints, t.taints, "taints", path, errs);
  checkOneForm(s.annotations, t.annotations, "annotations", path, errs);
  checkOneForm(s.startupTaints, t.startupTaints, "startupTaints", path, errs);
  checkOneForm(s.providerRef, t.providerRef, "providerRef", path, errs);

  const bool hasProvider =
      !(s.provider.is_null() || (s.provider.is_object() && s.provider.empty()));
  const bool hasRef = s.providerRef.has_value() || t.providerRef.has_value();
  const FieldPath refPath =
      t.providerRef ? path.child("template").child("providerRef") : path.child("providerRef");
  if (hasProvider && hasRef) {
    errs.push_back({refPath.str(), fielderr::forbidden(path.child("provider").str() + " and " +
                                                       refPath.str() + " are mutually exclusive")});
  }
  if (!hasProvider && !hasRef) {
    // With the template form in use the reference belongs there (seed 002).
    const FieldPath want =
        s.template_ ? path.child("template").child("providerRef") : path.child("providerRef");
    errs.push_back({want.str(), fielderr::required() + ": one of " + path.child("provider").str() +
                                    " or " + want.str() + " is needed"});
  }
  if (s.ttlSecondsAfterEmpty && s.consolidation.enabled) {
    errs.push_back({path.child("ttlSecondsAfterEmpty").str(),
                    fielderr::forbidden("may not be set together with " +
                                        path.child("consolidation").child("enabled").str())});
  }
  const bool nestedTaints = !t.taints.empty();
  const bool nestedStartup = !t.startupTaints.empty();
  validateTaintPairs(
      nestedTaints ? t.taints : s.taints,
      nestedTaints ? path.child("template").child("taints") : path.child("taints"),
      nestedStartup ? t.startupTaints : s.startupTaints,
      nestedStartup ? path.child("template").child("startupTaints") : path.child("startupTaints"),
      errs);
  for (const auto* labels : {&s.labels, &t.labels}) {
    if (labels->count(kProvisionerNameLabel) != 0) {
      const FieldPath at =
          labels == &s.labels ? path.child("labels") : path.child("template").child("labels");
      errs.push_back({at.key(kProvisionerNameLabel).str(),
                      fielderr::forbidden("label is restricted; Karpenter sets it")});
    }
  }
}

}  // namespace

const StructSchema& describe(Tag<ProvisionerTemplate>) {
  static const StructSchema s =
      StructBuilder<ProvisionerTemplate>(
          "ProvisionerTemplate",
          "The node-shaping fields of a Provisioner grouped as a template (seed 002); each may "
          "instead be written directly under spec, but not in both places.")
          .field<&ProvisionerTemplate::requirements>(
              "requirements", "Requirements are layered with labels and applied to every node.")
          .dynamic()
          .field<&ProvisionerTemplate::labels>("labels", "Labels applied to every node.")
          .field<&ProvisionerTemplate::taints>("taints", "Taints applied to every node.")
          .setList()
          .field<&ProvisionerTemplate::annotations>("annotations",
                                                    "Annotations applied to every node.")
          .field<&ProvisionerTemplate::startupTaints>(
              "startupTaints", "Taints applied at startup and expected to be removed by a daemon.")
          .setList()
          .field<&ProvisionerTemplate::providerRef>(
              "providerRef", "Reference to the AWSNodeTemplate that configures the instances.")
          .build();
  return s;
}

const StructSchema& describe(Tag<Consolidation>) {
  static const StructSchema s =
      StructBuilder<Consolidation>("Consolidation", "Consolidation parameters.")
          .field<&Consolidation::enabled>(
              "enabled", "Replaces or removes nodes whose pods fit elsewhere, to reduce cost.")
          .build();
  return s;
}

const StructSchema& describe(Tag<Limits>) {
  static const StructSchema s =
      StructBuilder<Limits>("Limits", "Bounds on the resources this provisioner may launch.")
          .field<&Limits::resources>(
              "resources", "Upper bound on the sum of each resource over all launched nodes.")
          .build();
  return s;
}

const StructSchema& describe(Tag<ProvisionerSpec>) {
  static const StructSchema s =
      StructBuilder<ProvisionerSpec>(
          "ProvisionerSpec",
          "Launches nodes for unschedulable pods; node properties combine the provisioner's "
          "constraints with the pods' scheduling constraints.")
          .field<&ProvisionerSpec::annotations>("annotations", "Annotations applied to every node.")
          .field<&ProvisionerSpec::labels>(
              "labels", "Labels are layered with requirements and applied to every node.")
          .field<&ProvisionerSpec::taints>(
              "taints", "Taints applied to every node; pods must tolerate them to be scheduled.")
          .setList()
          .field<&ProvisionerSpec::startupTaints>(
              "startupTaints",
              "Taints applied at startup and expected to be removed by a daemon; ignored for "
              "scheduling.")
          .setList()
          .field<&ProvisionerSpec::requirements>(
              "requirements", "Requirements are layered with labels and applied to every node.")
          .dynamic()
          .field<&ProvisionerSpec::kubeletConfiguration>(
              "kubeletConfiguration", "Options passed to the kubelet of every node launched.")
          .field<&ProvisionerSpec::provider>(
              "provider",
              "Inline provider configuration (deprecated); cannot be converted to v1, use "
              "providerRef.")
          .field<&ProvisionerSpec::providerRef>(
              "providerRef", "Reference to the AWSNodeTemplate that configures the instances.")
          .field<&ProvisionerSpec::ttlSecondsAfterEmpty>(
              "ttlSecondsAfterEmpty",
              "Seconds to wait before deleting a node that has no pods other than daemonsets.")
          .behavioral()
          .min(0)
          .field<&ProvisionerSpec::ttlSecondsUntilExpired>(
              "ttlSecondsUntilExpired",
              "Seconds after creation when a node is replaced; never if unset.")
          .behavioral()
          .min(0)
          .field<&ProvisionerSpec::limits>("limits",
                                           "Bounds on the resources this provisioner may launch.")
          .behavioral()
          .field<&ProvisionerSpec::weight>(
              "weight", "Priority among provisioners; higher weights are tried first.")
          .behavioral()
          .min(1)
          .max(100)
          .field<&ProvisionerSpec::consolidation>("consolidation", "Consolidation parameters.")
          .behavioral()
          .field<&ProvisionerSpec::template_>(
              "template",
              "Seed 002's template form of requirements, labels, taints, annotations, "
              "startupTaints and providerRef.")
          .validate(validateSpec)
          .build();
  return s;
}

const StructSchema& describe(Tag<ProvisionerStatus>) {
  static const StructSchema s =
      StructBuilder<ProvisionerStatus>("ProvisionerStatus", "Observed state of a Provisioner.")
          .field<&ProvisionerStatus::lastScaleTime>(
              "lastScaleTime", "When the provisioner last launched or removed a node.")
          .field<&ProvisionerStatus::conditions>("conditions",
                                                 "Signals for the provisioner's health.")
          .mapList({"type"})
          .field<&ProvisionerStatus::resources>(
              "resources", "Sum of the resources of the nodes this provisioner launched.")
          .build();
  return s;
}

const StructSchema& describe(Tag<Provisioner>) {
  static const StructSchema s = [] {
    StructBuilder<Provisioner> b("Provisioner",
                                 "Seed-era (karpenter.sh/v1alpha5) node provisioner; converted to "
                                 "a karpenter.sh/v1 NodePool.");
    withTypeMeta(b)
        .field<&Provisioner::spec>("spec", "Desired state of the provisioner.")
        .field<&Provisioner::status>("status", "Observed state of the provisioner.");
    return b.build();
  }();
  return s;
}

}  // namespace nodewright::api::seedera
