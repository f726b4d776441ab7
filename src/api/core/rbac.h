#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/labels.h"
#include "api/meta.h"
#include "api/reflect/schema.h"

// rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding and ClusterRoleBinding. The
// embedded API server has no authorization: it validates and stores these so a real install's
// manifests apply unchanged, but never evaluates them.
namespace nodewright::api::corev1 {

struct PolicyRule {
  std::vector<std::string> verbs;
  std::vector<std::string> apiGroups;
  std::vector<std::string> resources;
  std::vector<std::string> resourceNames;
  std::vector<std::string> nonResourceURLs;
};
const reflect::StructSchema& describe(reflect::Tag<PolicyRule>);

struct AggregationRule {
  std::vector<LabelSelector> clusterRoleSelectors;
};
const reflect::StructSchema& describe(reflect::Tag<AggregationRule>);

struct RoleRef {
  std::string apiGroup;
  std::string kind;  // Role or ClusterRole
  std::string name;
};
const reflect::StructSchema& describe(reflect::Tag<RoleRef>);

struct Subject {
  std::string kind;  // User, Group or ServiceAccount
  std::string apiGroup;
  std::string name;
  std::string namespace_;
};
const reflect::StructSchema& describe(reflect::Tag<Subject>);

struct Role {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  std::vector<PolicyRule> rules;
};
const reflect::StructSchema& describe(reflect::Tag<Role>);

struct ClusterRole {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  std::vector<PolicyRule> rules;
  std::optional<AggregationRule> aggregationRule;
};
const reflect::StructSchema& describe(reflect::Tag<ClusterRole>);

struct RoleBinding {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  std::vector<Subject> subjects;
  RoleRef roleRef;
};
const reflect::StructSchema& describe(reflect::Tag<RoleBinding>);

struct ClusterRoleBinding {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  std::vector<Subject> subjects;
  RoleRef roleRef;
};
const reflect::StructSchema& describe(reflect::Tag<ClusterRoleBinding>);

}  // namespace nodewright::api::corev1
