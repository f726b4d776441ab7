#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/reflect/schema.h"

namespace nodewright::api {

struct PrinterColumn {
  std::string name;
  std::string type;  // string, integer, date, boolean, number
  std::string jsonPath;
  std::string description;
  int priority = 0;
};

// Everything the API machinery needs to know about one kind in one version.
struct KindInfo {
  std::string group;  // "" for the core group
  std::string version;
  std::string kind;
  std::string plural;
  std::string singular;
  std::vector<std::string> shortNames;
  std::vector<std::string> categories;
  bool namespaced = false;
  bool statusSubresource = true;
  // Served through a CustomResourceDefinition (false for built-in kinds such as Pod).
  bool custom = true;
  // Seed-era kinds are still accepted but converted to this kind ("karpenter.sh/v1 NodePool").
  std::string convertsTo;
  std::string doc;
  std::vector<PrinterColumn> printerColumns;
  const reflect::TypeOps* type = nullptr;
  std::shared_ptr<void> (*make)() = nullptr;

  std::string apiVersion() const { return group.empty() ? version : group + "/" + version; }
  std::string listKind() const { return kind + "List"; }
};

// Creates the type-specific parts of a KindInfo for T.
template <class T>
KindInfo kindFor(std::string group, std::string version, std::string kind, std::string plural) {
  KindInfo info;
  info.group = std::move(group);
  info.version = std::move(version);
  info.kind = std::move(kind);
  info.plural = std::move(plural);
  info.singular = info.kind;
  for (char& c : info.singular) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  info.type = &reflect::opsFor<T>();
  info.make = []() -> std::shared_ptr<void> { return std::make_shared<T>(); };
  info.doc = info.type->structSchema().doc;
  return info;
}

// The set of kinds nodewright understands. Immutable once built.
class Registry {
 public:
  void add(KindInfo info);

  const KindInfo* find(std::string_view apiVersion, std::string_view kind) const;
  // By kind, plural, singular or short name, case-insensitive; the newest version wins.
  const KindInfo* lookup(std::string_view name) const;
  const std::vector<KindInfo>& kinds() const { return kinds_; }

 private:
  std::vector<KindInfo> kinds_;
};

// Every kind in DESIGN.md's "API compatibility" list, plus the core kinds controllers use.
const Registry& builtinRegistry();

// Each API group registers its kinds from its own file.
void registerCoreKinds(Registry& registry);
void registerKarpenterKinds(Registry& registry);
void registerSeedEraKinds(Registry& registry);
void registerClusterApiKinds(Registry& registry);
void registerAzureKinds(Registry& registry);
void registerKubeadmKinds(Registry& registry);

}  // namespace nodewright::api
