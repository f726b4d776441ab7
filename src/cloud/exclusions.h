#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "cloud/instance_type.h"

// Why instance types were left out, summed up for people: the rules that excluded the most
// types, each with one type's own reason as an example. Cloud-neutral, so the provisioner can
// name the reasons without knowing the cloud. Pure functions; thread-safe.
namespace nodewright::cloud {

struct ExclusionCount {
  std::string rule;  // Exclusion::rule; "" rules count under their own reason
  size_t count = 0;
  std::string example;  // the reason of the first type (by name) the rule excluded
};

// The rules that excluded the most types, most first (ties by rule), at most `limit`.
std::vector<ExclusionCount> topExclusions(const std::vector<Exclusion>& excluded, size_t limit);

// "1300 of 1434 instance types excluded: 1200 cannot carry the node class's network interfaces
// (e.g. 4 network interfaces on network card 0, m5.large allows 3); 100 not offered in the node
// class's zones (e.g. ...)", naming at most `limit` rules and "and N more" for the rest; ""
// when nothing was excluded. `total` is the number of types considered.
std::string describeExclusions(const std::vector<Exclusion>& excluded, size_t total,
                               size_t limit = 3);

}  // namespace nodewright::cloud
