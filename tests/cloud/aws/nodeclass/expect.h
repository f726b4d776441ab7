#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/meta.h"
#include "cloud/aws/nodeclass/resolved.h"

// Readers for what the resolver tests assert on.
namespace nodewright::cloud::aws::testing {

// The condition of `type`; a default one (empty status) when absent.
inline api::Condition condition(const ResolvedNodeClass& r, const std::string& type) {
  for (const api::Condition& c : r.status.conditions) {
    if (c.type == type) {
      return c;
    }
  }
  return {};
}

template <class T, class F>
std::vector<std::string> idsOf(const std::vector<T>& items, F id) {
  std::vector<std::string> out;
  for (const T& item : items) {
    out.push_back(id(item));
  }
  return out;
}

inline std::vector<std::string> subnetIds(const std::vector<sdk::Subnet>& s) {
  return idsOf(s, [](const sdk::Subnet& x) { return x.subnetId; });
}
inline std::vector<std::string> groupIds(const std::vector<sdk::SecurityGroup>& g) {
  return idsOf(g, [](const sdk::SecurityGroup& x) { return x.groupId; });
}
inline std::vector<std::string> imageIds(const std::vector<ResolvedImage>& i) {
  return idsOf(i, [](const ResolvedImage& x) { return x.id; });
}

}  // namespace nodewright::cloud::aws::testing
