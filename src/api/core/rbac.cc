#include "api/core/rbac.h"

#include <algorithm>

#include "api/core/validation.h"

namespace nodewright::api::corev1 {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

namespace {

constexpr const char* kRbacGroup = "rbac.authorization.k8s.io";

// ValidatePolicyRule: a rule grants verbs on either resources or non-resource URLs.
void validateRule(const PolicyRule& rule, bool namespaced, const FieldPath& path,
                  FieldErrors& errors) {
  if (rule.verbs.empty()) {
    errors.push_back(
        {path.child("verbs").str(), requiredWith("verbs must contain at least one value")});
  }
  if (!rule.nonResourceURLs.empty()) {
    const FieldPath urls = path.child("nonResourceURLs");
    if (namespaced) {
      errors.push_back({urls.str(), fielderr::invalid(Json(rule.nonResourceURLs),
                                                      "namespaced rules cannot apply to "
                                                      "non-resource URLs")});
    }
    if (!rule.apiGroups.empty() || !rule.resources.empty()) {
      errors.push_back({urls.str(), fielderr::invalid(Json(rule.nonResourceURLs),
                                                      "rules cannot apply to both regular "
                                                      "resources and non-resource URLs")});
    }
    return;
  }
  if (rule.apiGroups.empty()) {
    errors.push_back({path.child("apiGroups").str(),
                      requiredWith("resource rules must supply at least one api group")});
  }
  if (rule.resources.empty()) {
    errors.push_back({path.child("resources").str(),
                      requiredWith("resource rules must supply at least one resource")});
  }
}

void validateRules(const std::vector<PolicyRule>& rules, bool namespaced, const FieldPath& path,
                   FieldErrors& errors) {
  const FieldPath list = path.child("rules");
  for (size_t i = 0; i < rules.size(); ++i) {
    validateRule(rules[i], namespaced, list.index(i), errors);
  }
}

// ValidateRoleBinding / ValidateClusterRoleBinding: what the binding grants, and to whom.
void validateBinding(const RoleRef& ref, const std::vector<Subject>& subjects, bool namespaced,
                     const FieldPath& path, FieldErrors& errors) {
  const FieldPath roleRef = path.child("roleRef");
  if (ref.apiGroup != kRbacGroup) {
    errors.push_back(
        {roleRef.child("apiGroup").str(), fielderr::unsupported(Json(ref.apiGroup), {kRbacGroup})});
  }
  std::vector<std::string> kinds = {"ClusterRole"};
  if (namespaced) {
    kinds.insert(kinds.begin(), "Role");
  }
  if (std::find(kinds.begin(), kinds.end(), ref.kind) == kinds.end()) {
    errors.push_back({roleRef.child("kind").str(), fielderr::unsupported(Json(ref.kind), kinds)});
  }
  const FieldPath list = path.child("subjects");
  for (size_t i = 0; i < subjects.size(); ++i) {
    const Subject& s = subjects[i];
    const FieldPath at = list.index(i);
    if (s.kind == "ServiceAccount") {
      if (!s.apiGroup.empty()) {
        errors.push_back(
            {at.child("apiGroup").str(), fielderr::unsupported(Json(s.apiGroup), {""})});
      }
      // A RoleBinding's service accounts default to its own namespace; a cluster binding has none.
      if (!namespaced && s.namespace_.empty()) {
        errors.push_back({at.child("namespace").str(), fielderr::required()});
      }
    } else if (s.kind == "User" || s.kind == "Group") {
      if (s.apiGroup != kRbacGroup) {
        errors.push_back(
            {at.child("apiGroup").str(), fielderr::unsupported(Json(s.apiGroup), {kRbacGroup})});
      }
    } else {
      errors.push_back({at.child("kind").str(),
                        fielderr::unsupported(Json(s.kind), {"ServiceAccount", "User", "Group"})});
    }
  }
}

// SetDefaults_Subject and SetDefaults_RoleBinding: the API group users leave out.
template <class Binding>
void defaultBinding(Binding& binding) {
  if (binding.roleRef.apiGroup.empty()) {
    binding.roleRef.apiGroup = kRbacGroup;
  }
  for (Subject& s : binding.subjects) {
    if (s.apiGroup.empty() && (s.kind == "User" || s.kind == "Group")) {
      s.apiGroup = kRbacGroup;
    }
  }
}

template <class Binding>
StructSchema bindingSchema(const char* name, const char* doc, bool namespaced) {
  StructBuilder<Binding> b(name, doc);
  withTypeMeta(b);
  return b.template field<&Binding::subjects>("subjects", "Who the role is granted to.")
      .template field<&Binding::roleRef>("roleRef", "The role granted; cannot be changed.")
      .required()
      .defaults(defaultBinding<Binding>)
      .validate([namespaced](const Binding& binding, const FieldPath& path, FieldErrors& errors) {
        validateBinding(binding.roleRef, binding.subjects, namespaced, path, errors);
      })
      .build();
}

}  // namespace

const StructSchema& describe(Tag<PolicyRule>) {
  static const StructSchema s =
      StructBuilder<PolicyRule>("PolicyRule", "Verbs allowed on resources or non-resource URLs.")
          .field<&PolicyRule::verbs>("verbs", "Verbs allowed, e.g. get, list, watch; * for all.")
          .field<&PolicyRule::apiGroups>("apiGroups",
                                         "API groups of the resources; \"\" is the core group.")
          .field<&PolicyRule::resources>("resources", "Resources, e.g. pods or pods/status.")
          .field<&PolicyRule::resourceNames>("resourceNames",
                                             "Limits the rule to objects of these names.")
          .field<&PolicyRule::nonResourceURLs>(
              "nonResourceURLs", "Non-resource paths such as /healthz (ClusterRoles only).")
          .build();
  return s;
}

const StructSchema& describe(Tag<AggregationRule>) {
  static const StructSchema s =
      StructBuilder<AggregationRule>("AggregationRule",
                                     "Builds a ClusterRole's rules from other ClusterRoles.")
          .field<&AggregationRule::clusterRoleSelectors>("clusterRoleSelectors",
                                                         "ClusterRoles whose rules are aggregated.")
          .build();
  return s;
}

const StructSchema& describe(Tag<RoleRef>) {
  static const StructSchema s =
      StructBuilder<RoleRef>("RoleRef", "The role a binding grants.")
          .field<&RoleRef::apiGroup>("apiGroup", "rbac.authorization.k8s.io.")
          .field<&RoleRef::kind>("kind", "Role or ClusterRole.")
          .required()
          .field<&RoleRef::name>("name", "Name of the role.")
          .required()
          .build();
  return s;
}

const StructSchema& describe(Tag<Subject>) {
  static const StructSchema s =
      StructBuilder<Subject>("Subject", "A user, group or service account a role is granted to.")
          .field<&Subject::kind>("kind", "User, Group or ServiceAccount.")
          .required()
          .field<&Subject::apiGroup>(
              "apiGroup", "\"\" for ServiceAccount, rbac.authorization.k8s.io for User and Group.")
          .field<&Subject::name>("name", "Name of the subject.")
          .required()
          .field<&Subject::namespace_>("namespace", "Namespace of a ServiceAccount subject.")
          .build();
  return s;
}

const StructSchema& describe(Tag<Role>) {
  static const StructSchema s = [] {
    StructBuilder<Role> b("Role",
                          "Permissions within one namespace. Stored only: the embedded "
                          "API server does not authorize requests.");
    withTypeMeta(b);
    return b.field<&Role::rules>("rules", "What the role allows.")
        .validate([](const Role& role, const FieldPath& path, FieldErrors& errors) {
          validateRules(role.rules, /*namespaced=*/true, path, errors);
        })
        .build();
  }();
  return s;
}

const StructSchema& describe(Tag<ClusterRole>) {
  static const StructSchema s = [] {
    StructBuilder<ClusterRole> b("ClusterRole",
                                 "Cluster-wide permissions. Stored only: the embedded API server "
                                 "does not authorize requests.");
    withTypeMeta(b);
    return b.field<&ClusterRole::rules>("rules", "What the role allows.")
        .field<&ClusterRole::aggregationRule>(
            "aggregationRule", "If set, rules are the union of the selected ClusterRoles' rules.")
        .validate([](const ClusterRole& role, const FieldPath& path, FieldErrors& errors) {
          validateRules(role.rules, /*namespaced=*/false, path, errors);
          if (role.aggregationRule && role.aggregationRule->clusterRoleSelectors.empty()) {
            errors.push_back(
                {path.child("aggregationRule").child("clusterRoleSelectors").str(),
                 requiredWith("at least one clusterRoleSelector required if aggregationRule is "
                              "non-nil")});
          }
        })
        .build();
  }();
  return s;
}

const StructSchema& describe(Tag<RoleBinding>) {
  static const StructSchema s = bindingSchema<RoleBinding>(
      "RoleBinding", "Grants a Role or ClusterRole within one namespace.", /*namespaced=*/true);
  return s;
}

const StructSchema& describe(Tag<ClusterRoleBinding>) {
  static const StructSchema s = bindingSchema<ClusterRoleBinding>(
      "ClusterRoleBinding", "Grants a ClusterRole cluster-wide.", /*namespaced=*/false);
  return s;
}

}  // namespace nodewright::api::corev1
