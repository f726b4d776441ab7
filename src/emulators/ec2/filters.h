#pragma once

#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aws/error.h"
#include "aws/query.h"
#include "emulators/engine/resource_store.h"

// EC2's Describe* filters: Filter.N.Name with Filter.N.Value.M. A resource matches when it
// matches every filter, and it matches a filter when any of its values for the filter's name
// matches any of the filter's values. Values may use the wildcards '*' and '?' ('\' escapes).
namespace nodewright::emulators::ec2 {

struct Filter {
  std::string name;
  std::vector<std::string> values;
};

// InvalidParameterValue naming the parameter when a filter has no name or no values.
aws::ApiResult<std::vector<Filter>> parseFilters(const aws::Params& params);

// InvalidParameterValue "The filter 'x' is invalid" for a name outside `supported`; the tag
// filters ("tag:KEY", "tag-key", "tag-value") are accepted when `withTags`.
aws::ApiResult<void> checkFilterNames(const std::vector<Filter>& filters,
                                      std::initializer_list<std::string_view> supported,
                                      bool withTags = true);

bool wildcardMatch(std::string_view pattern, std::string_view value);

// A resource's values for a filter name; empty when it has none.
using FilterValues = std::function<std::vector<std::string>(std::string_view name)>;

// True when `valuesOf` satisfies every filter. Tag filters are answered from `tags`, other names
// from `valuesOf`.
bool matchesFilters(const std::vector<Filter>& filters, const Tags& tags,
                    const FilterValues& valuesOf);

}  // namespace nodewright::emulators::ec2
