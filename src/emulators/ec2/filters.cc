#include "emulators/ec2/filters.h"

#include <algorithm>

namespace nodewright::emulators::ec2 {
namespace {

bool isTagFilter(std::string_view name) {
  return name.starts_with("tag:") || name == "tag-key" || name == "tag-value";
}

std::vector<std::string> tagValues(const Tags& tags, std::string_view name) {
  std::vector<std::string> values;
  for (const Tag& tag : tags) {
    if (name == "tag-key") {
      values.push_back(tag.key);
    } else if (name == "tag-value") {
      values.push_back(tag.value);
    } else if (tag.key == name.substr(4)) {
      values.push_back(tag.value);
    }
  }
  return values;
}

bool matchesFilter(const Filter& filter, const std::vector<std::string>& values) {
  return std::any_of(values.begin(), values.end(), [&](const std::string& value) {
    return std::any_of(filter.values.begin(), filter.values.end(),
                       [&](const std::string& pattern) { return wildcardMatch(pattern, value); });
  });
}

}  // namespace

aws::ApiResult<std::vector<Filter>> parseFilters(const aws::Params& params) {
  auto members = params.list("Filter");
  if (!members) {
    return tl::unexpected(members.error());
  }
  std::vector<Filter> filters;
  for (const aws::Params& member : *members) {
    auto name = member.find("Name");
    if (!name || name->empty()) {
      return aws::apiFail("InvalidParameterValue",
                          "The filter name is missing: " + member.path("Name"));
    }
    auto values = member.strings("Value");
    if (!values) {
      return tl::unexpected(values.error());
    }
    if (values->empty()) {
      return aws::apiFail(
          "InvalidParameterValue",
          "The filter '" + std::string(*name) + "' has no values (" + member.path("Value.1") + ")");
    }
    filters.push_back(Filter{std::string(*name), std::move(*values)});
  }
  return filters;
}

aws::ApiResult<void> checkFilterNames(const std::vector<Filter>& filters,
                                      std::initializer_list<std::string_view> supported,
                                      bool withTags) {
  for (const Filter& filter : filters) {
    if (withTags && isTagFilter(filter.name)) {
      continue;
    }
    if (std::find(supported.begin(), supported.end(), filter.name) == supported.end()) {
      return aws::apiFail("InvalidParameterValue", "The filter '" + filter.name + "' is invalid");
    }
  }
  return {};
}

bool wildcardMatch(std::string_view pattern, std::string_view value) {
  // Iterative glob with backtracking to the last '*': linear in practice, no recursion depth.
  size_t p = 0, v = 0;
  size_t starP = std::string_view::npos, starV = 0;
  while (v < value.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      starP = p++;
      starV = v;
      continue;
    }
    if (p < pattern.size()) {
      char want = pattern[p];
      size_t width = 1;
      if (want == '\\' && p + 1 < pattern.size()) {
        want = pattern[p + 1];
        width = 2;
      } else if (want == '?') {
        p += 1;
        v += 1;
        continue;
      }
      if (want == value[v]) {
        p += width;
        v += 1;
        continue;
      }
    }
    if (starP == std::string_view::npos) {
      return false;
    }
    p = starP + 1;
    v = ++starV;
  }
  while (p < pattern.size() && pattern[p] == '*') {
    ++p;
  }
  return p == pattern.size();
}

bool matchesFilters(const std::vector<Filter>& filters, const Tags& tags,
                    const FilterValues& valuesOf) {
  return std::all_of(filters.begin(), filters.end(), [&](const Filter& filter) {
    return matchesFilter(
        filter, isTagFilter(filter.name) ? tagValues(tags, filter.name) : valuesOf(filter.name));
  });
}

}  // namespace nodewright::emulators::ec2
