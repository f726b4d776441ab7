#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/reflect/json.h"
#include "api/registry.h"

// CustomResourceDefinitions (apiextensions.k8s.io/v1) derived from the registry, so the manifests
// that `kubectl apply` installs and the model the controllers decode can never disagree.
namespace nodewright::api::crd {

// The first line of every generated file; a file that starts with it may be regenerated or
// removed by the generator.
inline constexpr const char* kGeneratedHeader =
    "# Generated from the nodewright resource model by `nodewright crds --output-dir "
    "deploy/crds`. Do not edit.\n";

// Orders Kubernetes API versions the way the API server does: GA before beta before alpha, higher
// numbers first ("v1" > "v1beta2" > "v1beta1" > "v1alpha5"); versions of another shape sort
// last, alphabetically. Returns true when `a` has the higher priority.
bool higherVersionPriority(std::string_view a, std::string_view b);

// One CRD per group and kind, holding every registered version of that kind (the newest is the
// storage version). Only kinds with KindInfo.custom are included. Sorted by group, then plural.
std::vector<Json> generateCrds(const Registry& registry);

// The CRD for the versions of one group and kind; `versions` must be non-empty and agree on
// group, kind, plural and scope.
Json crdFor(const std::vector<const KindInfo*>& versions);

// "<group>_<plural>.yaml", the name controller-gen gives the file.
std::string crdFileName(const Json& crd);

// Every file of deploy/crds/ by name: one YAML file per CRD plus kustomization.yaml.
std::map<std::string, std::string> crdFiles(const Registry& registry);

// All CRDs as one multi-document YAML stream.
std::string crdStream(const Registry& registry);

}  // namespace nodewright::api::crd
