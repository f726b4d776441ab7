#include "api/conversion/nodepool_conversion.h"

#include <set>
#include <sstream>

#include "api/conversion/annotations.h"

namespace nodewright::api::conversion {
namespace {

constexpr const char* kAwsGroup = "karpenter.k8s.aws";
constexpr const char* kNodeClassKind = "EC2NodeClass";
constexpr const char* kNodeTemplateKind = "AWSNodeTemplate";
constexpr const char* kWhenEmpty = "WhenEmpty";
constexpr const char* kWhenEmptyOrUnderutilized = "WhenEmptyOrUnderutilized";
constexpr const char* kNodePoolTarget = "karpenter.sh/v1 NodePool";
// A NodePool without expireAfter expires its nodes after the v1 default.
constexpr int64_t kDefaultExpireAfterSeconds = 720 * 3600;

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) {
    out += (out.empty() ? "" : ",") + s;
  }
  return out;
}

std::set<std::string> split(const std::string& text) {
  std::set<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) {
      out.insert(item);
    }
  }
  return out;
}

template <class V>
bool isSet(const V& v) {
  if constexpr (requires { v.has_value(); }) {
    return v.has_value();
  } else {
    return !v.empty();
  }
}

// Where each node-shaping field of a Provisioner lives: spec.X or seed 002's spec.template.X.
class FormPicker {
 public:
  FormPicker(const seedera::ProvisionerSpec& spec, FieldErrors& errors)
      : spec_(spec),
        template_(spec.template_.value_or(seedera::ProvisionerTemplate{})),
        errors_(errors) {}

  template <class V>
  const V& pick(const V& flat, V seedera::ProvisionerTemplate::*member, const char* name) {
    const V& nested = template_.*member;
    if (isSet(flat) && isSet(nested)) {
      const std::string flatPath = FieldPath("spec").child(name).str();
      const std::string nestedPath = FieldPath("spec").child("template").child(name).str();
      errors_.push_back({nestedPath, fielderr::forbidden(flatPath + " and " + nestedPath +
                                                         " are both set; set only one of them")});
    }
    if (isSet(nested)) {
      nestedFields_.push_back(name);
      return nested;
    }
    return flat;
  }
  FieldPath pathOf(const char* name) const {
    bool nested =
        std::find(nestedFields_.begin(), nestedFields_.end(), name) != nestedFields_.end();
    return nested ? FieldPath("spec").child("template").child(name) : FieldPath("spec").child(name);
  }
  // The template-fields annotation value, when the Provisioner had a spec.template.
  std::optional<std::string> annotation() const {
    return spec_.template_ ? std::optional<std::string>(join(nestedFields_)) : std::nullopt;
  }

 private:
  const seedera::ProvisionerSpec& spec_;
  seedera::ProvisionerTemplate template_;
  FieldErrors& errors_;
  std::vector<std::string> nestedFields_;
};

void convertDisruption(const seedera::ProvisionerSpec& s, karpenter::Disruption& out,
                       FieldErrors& errors) {
  const FieldPath spec("spec");
  if (s.consolidation.enabled) {
    if (s.ttlSecondsAfterEmpty) {
      errors.push_back({spec.child("ttlSecondsAfterEmpty").str(),
                        fielderr::forbidden("may not be set together with " +
                                            spec.child("consolidation").child("enabled").str())});
    }
    out.consolidationPolicy = kWhenEmptyOrUnderutilized;
    out.consolidateAfter = core::Duration();
  } else if (s.ttlSecondsAfterEmpty) {
    out.consolidationPolicy = kWhenEmpty;
    out.consolidateAfter =
        secondsToDuration(*s.ttlSecondsAfterEmpty, spec.child("ttlSecondsAfterEmpty"), errors);
  } else {
    out.consolidationPolicy = kWhenEmpty;
    out.consolidateAfter = core::Duration::never();
  }
}

void restoreDisruption(const karpenter::Disruption& d, seedera::ProvisionerSpec& out,
                       FieldErrors& errors) {
  const FieldPath path = FieldPath("spec").child("disruption");
  const std::string policy =
      d.consolidationPolicy.empty() ? kWhenEmptyOrUnderutilized : d.consolidationPolicy;
  const core::Duration after = d.consolidateAfter.value_or(core::Duration());
  if (policy == kWhenEmptyOrUnderutilized) {
    if (!after.isNever()) {
      if (after.value().count() != 0) {
        errors.push_back({path.child("consolidateAfter").str(),
                          fielderr::invalid(Json(after.toString()),
                                            "v1alpha5 consolidates underutilized nodes without "
                                            "delay; only 0s or Never can be expressed")});
      }
      out.consolidation.enabled = true;
    }
  } else if (!after.isNever()) {
    out.ttlSecondsAfterEmpty = durationToSeconds(after, path.child("consolidateAfter"), errors);
  }
  const bool defaultBudget = d.budgets.size() == 1 && d.budgets[0].nodes == "10%" &&
                             d.budgets[0].schedule.empty() && !d.budgets[0].duration &&
                             d.budgets[0].reasons.empty();
  if (!d.budgets.empty() && !defaultBudget) {
    errors.push_back(noEquivalent(path.child("budgets"), kV1Alpha5));
  }
}

}  // namespace

Converted<karpenter::NodePool> toNodePool(const seedera::Provisioner& provisioner) {
  FieldErrors errors;
  const seedera::ProvisionerSpec& s = provisioner.spec;
  const FieldPath spec("spec");
  karpenter::NodePool pool;
  pool.apiVersion = kV1;
  pool.kind = "NodePool";
  pool.metadata = provisioner.metadata;
  auto annotate = [&](const char* key, std::string value) {
    pool.metadata.annotations[key] = std::move(value);
  };

  FormPicker form(s, errors);
  karpenter::NodeClaimTemplate& t = pool.spec.template_;
  t.metadata.labels = form.pick(s.labels, &seedera::ProvisionerTemplate::labels, "labels");
  t.metadata.annotations =
      form.pick(s.annotations, &seedera::ProvisionerTemplate::annotations, "annotations");
  t.spec.taints = toV1(form.pick(s.taints, &seedera::ProvisionerTemplate::taints, "taints"));
  t.spec.startupTaints = toV1(
      form.pick(s.startupTaints, &seedera::ProvisionerTemplate::startupTaints, "startupTaints"));
  t.spec.requirements =
      toV1(form.pick(s.requirements, &seedera::ProvisionerTemplate::requirements, "requirements"));
  const std::optional<seedera::ProviderRef>& ref =
      form.pick(s.providerRef, &seedera::ProvisionerTemplate::providerRef, "providerRef");
  if (auto fields = form.annotation()) {
    annotate(kTemplateFieldsAnnotation, *fields);
  }

  if (!(s.provider.is_null() || (s.provider.is_object() && s.provider.empty()))) {
    errors.push_back(
        {spec.child("provider").str(),
         fielderr::forbidden("an inline provider cannot be expressed in " + std::string(kV1) +
                             "; move it to an AWSNodeTemplate (converted to an "
                             "EC2NodeClass) and reference that with providerRef")});
  }
  if (ref) {
    const FieldPath refPath = form.pathOf("providerRef");
    if (!ref->kind.empty() && ref->kind != kNodeTemplateKind) {
      errors.push_back({refPath.child("kind").str(),
                        fielderr::unsupported(Json(ref->kind), {kNodeTemplateKind})});
    }
    if (!ref->apiVersion.empty() && ref->apiVersion != kV1Alpha1Aws) {
      errors.push_back({refPath.child("apiVersion").str(),
                        fielderr::unsupported(Json(ref->apiVersion), {kV1Alpha1Aws})});
    }
    t.spec.nodeClassRef = {kAwsGroup, kNodeClassKind, ref->name};
    if (!ref->kind.empty() || !ref->apiVersion.empty()) {
      Json original = Json::object();
      if (!ref->apiVersion.empty()) {
        original["apiVersion"] = ref->apiVersion;
      }
      if (!ref->kind.empty()) {
        original["kind"] = ref->kind;
      }
      annotate(kProviderRefAnnotation, original.dump());
    }
  }

  t.spec.kubelet = toV1(s.kubeletConfiguration, spec.child("kubeletConfiguration"), errors);
  t.spec.expireAfter = s.ttlSecondsUntilExpired
                           ? secondsToDuration(*s.ttlSecondsUntilExpired,
                                               spec.child("ttlSecondsUntilExpired"), errors)
                           : core::Duration::never();
  convertDisruption(s, pool.spec.disruption, errors);
  pool.spec.limits = s.limits.resources;
  pool.spec.weight = s.weight;

  const seedera::ProvisionerStatus& st = provisioner.status;
  pool.status.resources = st.resources;
  Json severities = Json::object();
  pool.status.conditions = toV1(st.conditions, {}, severities);
  if (!severities.empty()) {
    annotate(kConditionSeveritiesAnnotation, severities.dump());
  }
  if (st.lastScaleTime) {
    annotate(kLastScaleTimeAnnotation, st.lastScaleTime->toString());
  }

  if (!errors.empty()) {
    return failed(std::move(errors));
  }
  return checkLossless(provisioner, std::move(pool), toProvisioner, kNodePoolTarget);
}

Converted<seedera::Provisioner> toProvisioner(const karpenter::NodePool& nodePool) {
  FieldErrors errors;
  const karpenter::NodePoolSpec& np = nodePool.spec;
  const FieldPath templateSpec = FieldPath("spec").child("template").child("spec");
  seedera::Provisioner out;
  out.apiVersion = kV1Alpha5;
  out.kind = "Provisioner";
  out.metadata = nodePool.metadata;
  std::optional<std::string> nestedText = takeAnnotation(out.metadata, kTemplateFieldsAnnotation);
  std::optional<Json> refMeta = takeJsonAnnotation(out.metadata, kProviderRefAnnotation, errors);
  std::optional<Json> severities =
      takeJsonAnnotation(out.metadata, kConditionSeveritiesAnnotation, errors);
  std::optional<std::string> lastScale = takeAnnotation(out.metadata, kLastScaleTimeAnnotation);
  dropConversionAnnotations(out.metadata);

  seedera::ProvisionerSpec& s = out.spec;
  const std::set<std::string> nested = nestedText ? split(*nestedText) : std::set<std::string>{};
  seedera::ProvisionerTemplate t;
  auto place = [&](auto value, auto seedera::ProvisionerSpec::*flat,
                   auto seedera::ProvisionerTemplate::*inTemplate, const char* name) {
    if (nested.count(name) != 0) {
      t.*inTemplate = std::move(value);
    } else {
      s.*flat = std::move(value);
    }
  };
  place(np.template_.metadata.labels, &seedera::ProvisionerSpec::labels,
        &seedera::ProvisionerTemplate::labels, "labels");
  place(np.template_.metadata.annotations, &seedera::ProvisionerSpec::annotations,
        &seedera::ProvisionerTemplate::annotations, "annotations");
  place(toSeedEra(np.template_.spec.taints), &seedera::ProvisionerSpec::taints,
        &seedera::ProvisionerTemplate::taints, "taints");
  place(toSeedEra(np.template_.spec.startupTaints), &seedera::ProvisionerSpec::startupTaints,
        &seedera::ProvisionerTemplate::startupTaints, "startupTaints");
  place(toSeedEra(np.template_.spec.requirements, templateSpec.child("requirements"), errors),
        &seedera::ProvisionerSpec::requirements, &seedera::ProvisionerTemplate::requirements,
        "requirements");

  const karpenter::NodeClassReference& ref = np.template_.spec.nodeClassRef;
  if (!ref.group.empty() || !ref.kind.empty() || !ref.name.empty()) {
    const FieldPath refPath = templateSpec.child("nodeClassRef");
    if (ref.group != kAwsGroup) {
      errors.push_back(
          {refPath.child("group").str(), fielderr::unsupported(Json(ref.group), {kAwsGroup})});
    }
    if (ref.kind != kNodeClassKind) {
      errors.push_back(
          {refPath.child("kind").str(), fielderr::unsupported(Json(ref.kind), {kNodeClassKind})});
    }
    seedera::ProviderRef providerRef;
    providerRef.name = ref.name;
    if (refMeta && refMeta->is_object()) {
      providerRef.apiVersion = refMeta->value("apiVersion", "");
      providerRef.kind = refMeta->value("kind", "");
    }
    place(std::optional<seedera::ProviderRef>(providerRef), &seedera::ProvisionerSpec::providerRef,
          &seedera::ProvisionerTemplate::providerRef, "providerRef");
  }
  if (nestedText) {
    s.template_ = std::move(t);
  }

  s.kubeletConfiguration =
      toSeedEra(np.template_.spec.kubelet, templateSpec.child("kubelet"), errors);
  const core::Duration expire = np.template_.spec.expireAfter.value_or(
      core::Duration(std::chrono::seconds(kDefaultExpireAfterSeconds)));
  if (!expire.isNever()) {
    s.ttlSecondsUntilExpired = durationToSeconds(expire, templateSpec.child("expireAfter"), errors);
  }
  if (np.template_.spec.terminationGracePeriod) {
    errors.push_back(noEquivalent(templateSpec.child("terminationGracePeriod"), kV1Alpha5));
  }
  restoreDisruption(np.disruption, s, errors);
  s.limits.resources = np.limits;
  s.weight = np.weight;

  // status.nodes is recomputed by the controller; it has no v1alpha5 field and is not kept.
  out.status.resources = nodePool.status.resources;
  out.status.conditions =
      toSeedEra(nodePool.status.conditions, {}, severities.value_or(Json::object()));
  if (lastScale) {
    auto time = core::Time::parse(*lastScale);
    if (time) {
      out.status.lastScaleTime = *time;
    } else {
      errors.push_back(
          {FieldPath("metadata").child("annotations").key(kLastScaleTimeAnnotation).str(),
           fielderr::invalid(Json(*lastScale), time.error().message())});
    }
  }
  if (!errors.empty()) {
    return failed(std::move(errors));
  }
  return out;
}

}  // namespace nodewright::api::conversion
