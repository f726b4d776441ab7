#include "api/registry.h"

#include <algorithm>
#include <cctype>

#include "core/check.h"

namespace nodewright::api {
namespace {

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

void Registry::add(KindInfo info) {
  NW_CHECK(find(info.apiVersion(), info.kind) == nullptr);
  kinds_.push_back(std::move(info));
}

const KindInfo* Registry::find(std::string_view apiVersion, std::string_view kind) const {
  for (const KindInfo& k : kinds_) {
    if (k.kind == kind && k.apiVersion() == apiVersion) {
      return &k;
    }
  }
  return nullptr;
}

const KindInfo* Registry::lookup(std::string_view name) const {
  // Prefer current kinds over seed-era ones with the same name (Machine).
  const KindInfo* found = nullptr;
  for (const KindInfo& k : kinds_) {
    bool match = equalsIgnoreCase(k.kind, name) || equalsIgnoreCase(k.plural, name) ||
                 equalsIgnoreCase(k.singular, name) ||
                 std::any_of(k.shortNames.begin(), k.shortNames.end(),
                             [&](const std::string& s) { return equalsIgnoreCase(s, name); });
    if (match && (found == nullptr || (!found->convertsTo.empty() && k.convertsTo.empty()))) {
      found = &k;
    }
  }
  return found;
}

const Registry& builtinRegistry() {
  static const Registry registry = [] {
    Registry r;
    registerCoreKinds(r);
    registerKarpenterKinds(r);
    registerSeedEraKinds(r);
    registerClusterApiKinds(r);
    registerAzureKinds(r);
    registerKubeadmKinds(r);
    return r;
  }();
  return registry;
}

}  // namespace nodewright::api
