#include "cloud/azure/api_versions.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>
#include <vector>

#include "cloud/azure/http_util.h"
#include "core/text.h"

namespace nodewright::cloud::azure {
namespace {

std::vector<std::string_view> segments(std::string_view path) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= path.size()) {
    const size_t end = path.find('/', start);
    const size_t stop = end == std::string_view::npos ? path.size() : end;
    out.push_back(path.substr(start, stop - start));
    if (end == std::string_view::npos) {
      break;
    }
    start = end + 1;
  }
  return out;
}

// Types whose version differs from their namespace's default, then the defaults. Keys are
// lower-case. armnetwork/v4: 2023-04-01; armcompute/v5 (package-2023-09-01): compute
// 2023-09-01, disks 2023-04-02, resource SKUs 2021-07-01; armprivatedns v1.3: 2024-06-01;
// armresources v1: 2021-04-01; armauthorization/v2: 2022-04-01; armmsi v1.2: 2023-01-31.
constexpr std::array<std::pair<std::string_view, std::string_view>, 12> kTypeVersions = {{
    {"microsoft.resources/resourcegroups", "2021-04-01"},
    {"microsoft.network/privatednszones", "2024-06-01"},
    {"microsoft.compute/disks", "2023-04-02"},
    {"microsoft.compute/snapshots", "2023-04-02"},
    {"microsoft.compute/diskaccesses", "2023-04-02"},
    {"microsoft.compute/diskencryptionsets", "2023-04-02"},
    {"microsoft.compute/skus", "2021-07-01"},
    {"microsoft.compute/locations/vmsizes", "2023-09-01"},
    {"microsoft.authorization/roleassignments", "2022-04-01"},
    {"microsoft.authorization/roledefinitions", "2022-04-01"},
    {"microsoft.managedidentity/userassignedidentities", "2023-01-31"},
    {"microsoft.resources/subscriptions", "2021-04-01"},
}};

constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kNamespaceVersions = {{
    {"microsoft.network", "2023-04-01"},
    {"microsoft.compute", "2023-09-01"},
    {"microsoft.resources", "2021-04-01"},
    {"microsoft.authorization", "2022-04-01"},
    {"microsoft.managedidentity", "2023-01-31"},
}};

}  // namespace

std::optional<std::string> resourceTypeOf(std::string_view id) {
  if (!id.starts_with('/')) {
    return std::nullopt;
  }
  while (id.size() > 1 && id.back() == '/') {
    id.remove_suffix(1);
  }
  const std::vector<std::string_view> parts = segments(id.substr(1));
  const size_t n = parts.size();
  if (n < 2 || !core::equalsIgnoreCase(parts[0], "subscriptions") ||
      std::any_of(parts.begin(), parts.end(), [](std::string_view p) { return p.empty(); })) {
    return std::nullopt;
  }
  // The scope: the subscription, then maybe its resource group.
  size_t i = 2;
  const bool inGroup = i < n && core::equalsIgnoreCase(parts[i], "resourceGroups");
  if (inGroup) {
    i += 2;
    if (i > n) {
      return std::nullopt;
    }
  }
  if (i == n) {
    return std::string(inGroup ? "Microsoft.Resources/resourceGroups"
                               : "Microsoft.Resources/subscriptions");
  }
  // Then providers/{namespace} with type/name pairs, repeated for extension resources. Only a
  // segment in a type's place can be the keyword: a group, vnet or subnet may be named
  // "providers".
  std::optional<std::string> type;
  while (i < n) {
    if (!core::equalsIgnoreCase(parts[i], "providers") || i + 1 >= n) {
      return std::nullopt;
    }
    std::string current(parts[i + 1]);
    i += 2;
    size_t pairs = 0;
    for (; i < n && !core::equalsIgnoreCase(parts[i], "providers"); i += 2, ++pairs) {
      if (i + 1 >= n) {
        return std::nullopt;
      }
      current.append("/").append(parts[i]);
    }
    if (pairs == 0) {
      return std::nullopt;
    }
    type = std::move(current);
  }
  return type;
}

bool validApiVersion(std::string_view version) {
  // YYYY-MM-DD, then an optional "-preview"-like suffix.
  if (version.size() < 10) {
    return false;
  }
  for (size_t i = 0; i < 10; ++i) {
    const bool dash = i == 4 || i == 7;
    const unsigned char c = static_cast<unsigned char>(version[i]);
    if (dash ? c != '-' : !std::isdigit(c)) {
      return false;
    }
  }
  const std::string_view suffix = version.substr(10);
  if (suffix.empty()) {
    return true;
  }
  return suffix.size() > 1 && suffix[0] == '-' &&
         std::all_of(suffix.begin() + 1, suffix.end(),
                     [](unsigned char c) { return std::isalnum(c) || c == '.'; });
}

bool validResourceId(std::string_view id) {
  const bool plain = std::all_of(id.begin(), id.end(), [](unsigned char c) {
    return c > 0x20 && c != 0x7f && c != '?' && c != '#' && c != '%';
  });
  return plain && validUtf8(id) && resourceTypeOf(id).has_value();
}

std::optional<std::string> apiVersionForType(std::string_view type,
                                             const ApiVersionOverrides& overrides) {
  const std::string key = core::lowerAscii(type);
  const size_t slash = key.find('/');
  if (slash == std::string::npos) {
    return std::nullopt;
  }
  // A child type takes its top-level parent's version (subnets take virtualNetworks').
  const size_t second = key.find('/', slash + 1);
  const std::string topLevel = key.substr(0, second);
  for (const std::string& k : {key, topLevel}) {
    if (auto it = overrides.find(k); it != overrides.end()) {
      return it->second;
    }
  }
  for (const auto& [name, version] : kTypeVersions) {
    if (name == key || name == topLevel) {
      return std::string(version);
    }
  }
  const std::string_view ns = std::string_view(key).substr(0, slash);
  for (const auto& [name, version] : kNamespaceVersions) {
    if (name == ns) {
      return std::string(version);
    }
  }
  return std::nullopt;
}

std::optional<std::string> apiVersionFor(std::string_view id,
                                         const ApiVersionOverrides& overrides) {
  auto type = resourceTypeOf(id);
  if (!type) {
    return std::nullopt;
  }
  return apiVersionForType(*type, overrides);
}

}  // namespace nodewright::cloud::azure
