// Exclusion reasons summed up by rule, for the FailedScheduling event and explain-types.
#include "cloud/exclusions.h"

#include <gtest/gtest.h>

namespace nodewright::cloud {
namespace {

const std::string kInterfaces = "cannot carry the network interfaces asked for";
const std::string kZones = "not offered in the node class's zones";

std::vector<Exclusion> sample() {
  return {{"m5.large", "4 network interfaces on network card 0, m5.large allows 3", kInterfaces},
          {"c5.large", "4 network interfaces on network card 0, c5.large allows 3", kInterfaces},
          {"x1.large", "x1.large is not offered in the node class's zones (a)", kZones},
          {"p2.xlarge", "p2.xlarge has no known IPv4 addresses per network interface", ""}};
}

TEST(ExclusionsTest, CountsByRuleMostFirstWithTheFirstTypeAsExample) {
  const auto top = topExclusions(sample(), 10);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].rule, kInterfaces);
  EXPECT_EQ(top[0].count, 2u);
  EXPECT_EQ(top[0].example, "4 network interfaces on network card 0, c5.large allows 3");
  // Ties by rule; a type without a rule counts under its own reason.
  EXPECT_EQ(top[1].rule, kZones);
  EXPECT_EQ(top[2].rule, "p2.xlarge has no known IPv4 addresses per network interface");
  EXPECT_EQ(topExclusions(sample(), 1).size(), 1u);
}

TEST(ExclusionsTest, DescribesTheTopRulesAndCountsTheRest) {
  EXPECT_EQ(describeExclusions(sample(), 10, 1),
            "4 of 10 instance types excluded: 2 cannot carry the network interfaces asked for "
            "(e.g. 4 network interfaces on network card 0, c5.large allows 3); and 2 more for 2 "
            "other reasons");
  EXPECT_EQ(describeExclusions({}, 10), "");
}

}  // namespace
}  // namespace nodewright::cloud
