#include "emulators/ec2/catalog.h"

#include <algorithm>
#include <utility>

namespace nodewright::emulators::ec2 {

std::string_view architectureName(Architecture arch) {
  switch (arch) {
    case Architecture::I386:
      return "i386";
    case Architecture::X86_64:
      return "x86_64";
    case Architecture::Arm64:
      return "arm64";
    case Architecture::X86_64Mac:
      return "x86_64_mac";
    case Architecture::Arm64Mac:
      return "arm64_mac";
  }
  return "unknown";
}

std::optional<Architecture> parseArchitecture(std::string_view name) {
  if (name == "x86_64" || name == "amd64") {
    return Architecture::X86_64;
  }
  if (name == "arm64") {
    return Architecture::Arm64;
  }
  if (name == "i386") {
    return Architecture::I386;
  }
  if (name == "x86_64_mac") {
    return Architecture::X86_64Mac;
  }
  if (name == "arm64_mac") {
    return Architecture::Arm64Mac;
  }
  return std::nullopt;
}

const NetworkCard* InstanceTypeInfo::card(int index) const {
  for (const NetworkCard& c : networkCards) {
    if (c.index == index) {
      return &c;
    }
  }
  return nullptr;
}

Catalog::Catalog(std::vector<InstanceTypeInfo> types) : types_(std::move(types)) {
  std::sort(types_.begin(), types_.end(),
            [](const InstanceTypeInfo& a, const InstanceTypeInfo& b) { return a.name < b.name; });
}

const InstanceTypeInfo* Catalog::find(std::string_view name) const {
  auto it = std::lower_bound(
      types_.begin(), types_.end(), name,
      [](const InstanceTypeInfo& t, std::string_view n) { return std::string_view(t.name) < n; });
  return it != types_.end() && it->name == name ? &*it : nullptr;
}

}  // namespace nodewright::emulators::ec2
