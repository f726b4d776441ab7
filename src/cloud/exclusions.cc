#include "cloud/exclusions.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace nodewright::cloud {

std::vector<ExclusionCount> topExclusions(const std::vector<Exclusion>& excluded, size_t limit) {
  std::map<std::string, ExclusionCount> byRule;
  std::map<std::string, std::string> firstType;  // rule -> the type its example is from
  for (const Exclusion& e : excluded) {
    const std::string& rule = e.rule.empty() ? e.reason : e.rule;
    ExclusionCount& count = byRule[rule];
    count.rule = rule;
    ++count.count;
    auto first = firstType.find(rule);
    if (first == firstType.end() || e.instanceType < first->second) {
      firstType[rule] = e.instanceType;
      count.example = e.reason;
    }
  }
  std::vector<ExclusionCount> out;
  out.reserve(byRule.size());
  for (auto& [rule, count] : byRule) {
    out.push_back(std::move(count));
  }
  std::stable_sort(out.begin(), out.end(), [](const ExclusionCount& a, const ExclusionCount& b) {
    return a.count > b.count;
  });
  if (out.size() > limit) {
    out.resize(limit);
  }
  return out;
}

std::string describeExclusions(const std::vector<Exclusion>& excluded, size_t total,
                               size_t limit) {
  if (excluded.empty()) {
    return "";
  }
  const std::vector<ExclusionCount> all = topExclusions(excluded, excluded.size());
  std::string out = fmt::format("{} of {} instance types excluded: ", excluded.size(), total);
  for (size_t i = 0; i < all.size() && i < limit; ++i) {
    const ExclusionCount& c = all[i];
    out += fmt::format("{}{} {}", i == 0 ? "" : "; ", c.count, c.rule);
    if (c.example != c.rule) {
      out += fmt::format(" (e.g. {})", c.example);
    }
  }
  if (all.size() > limit) {
    size_t rest = 0;
    for (size_t i = limit; i < all.size(); ++i) {
      rest += all[i].count;
    }
    out += fmt::format("; and {} more for {} other reason{}", rest, all.size() - limit,
                       all.size() - limit == 1 ? "" : "s");
  }
  return out;
}

}  // namespace nodewright::cloud
