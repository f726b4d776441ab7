#include "controllers/provisioning/scheduling/requirements.h"

#include <gtest/gtest.h>

namespace nodewright::controllers::provisioning::scheduling {
namespace {

Requirement op(const char* o, std::vector<std::string> values = {}) {
  return Requirement::fromOperator(o, values);
}

TEST(RequirementTest, InIntersectsToCommonValues) {
  Requirement r = op("In", {"a", "b", "c"}).intersect(op("In", {"b", "c", "d"}));
  EXPECT_EQ(r.describe(), "In [b,c]");
  EXPECT_FALSE(r.allowsAbsent());
  EXPECT_FALSE(r.empty());
}

TEST(RequirementTest, NotInRemovesFromIn) {
  Requirement r = op("In", {"a", "b"}).intersect(op("NotIn", {"a"}));
  EXPECT_EQ(r.describe(), "In [b]");
}

TEST(RequirementTest, NotInAndDoesNotExistMeetOnAbsentLabel) {
  Requirement r = op("NotIn", {"a"}).intersect(op("DoesNotExist"));
  EXPECT_FALSE(r.empty());
  EXPECT_TRUE(r.allowsAbsent());
  EXPECT_FALSE(r.has("b"));
}

TEST(RequirementTest, InAndDoesNotExistConflict) {
  EXPECT_TRUE(op("In", {"a"}).intersect(op("DoesNotExist")).empty());
  EXPECT_TRUE(op("Exists").intersect(op("DoesNotExist")).empty());
  EXPECT_TRUE(op("In", {"a"}).intersect(op("In", {"b"})).empty());
}

TEST(RequirementTest, IntegerBoundsAreExclusiveAndInclusive) {
  Requirement r = op("Gt", {"2"}).intersect(op("Lt", {"5"}));
  EXPECT_FALSE(r.has("2"));
  EXPECT_TRUE(r.has("3"));
  EXPECT_TRUE(r.has("4"));
  EXPECT_FALSE(r.has("5"));
  EXPECT_FALSE(r.has("x"));
  EXPECT_FALSE(r.allowsAbsent());
  Requirement inclusive = op("Gte", {"2"}).intersect(op("Lte", {"5"}));
  EXPECT_TRUE(inclusive.has("2"));
  EXPECT_TRUE(inclusive.has("5"));
  EXPECT_FALSE(inclusive.has("6"));
  EXPECT_TRUE(op("Gt", {"4"}).intersect(op("Lt", {"5"})).empty());
}

TEST(RequirementTest, BoundsFilterAFiniteList) {
  Requirement r = op("In", {"1", "8", "16"}).intersect(op("Gt", {"4"}));
  EXPECT_EQ(r.describe(), "In [16,8]");
}

TEST(RequirementTest, MinValuesTakesTheLarger) {
  Requirement a = op("In", {"a", "b", "c"});
  a.minValues = 2;
  Requirement b = op("Exists");
  b.minValues = 3;
  EXPECT_EQ(a.intersect(b).minValues, 3);
}

TEST(RequirementTest, UnknownOperatorAdmitsNothing) {
  EXPECT_TRUE(op("Near", {"a"}).empty());
}

TEST(RequirementsTest, CustomKeyUndefinedByPoolIsIncompatible) {
  Requirements pool;
  pool.add("team", Requirement::in({"a"}));
  Requirements pod;
  pod.add("gpu", Requirement::in({"yes"}));
  EXPECT_EQ(pool.compatible(pod), "label \"gpu\" does not have known values");
  Requirements notIn;
  notIn.add("gpu", op("NotIn", {"yes"}));
  EXPECT_EQ(pool.compatible(notIn), std::nullopt);
}

TEST(RequirementsTest, WellKnownKeysNeedNoDefinition) {
  Requirements pool;
  Requirements pod;
  pod.add("topology.kubernetes.io/zone", Requirement::in({"zone-a"}));
  pod.add("karpenter.k8s.aws/instance-family", Requirement::in({"m5"}));
  pod.add("kubernetes.io/arch", Requirement::in({"arm64"}));
  EXPECT_EQ(pool.compatible(pod), std::nullopt);
  Requirements host;
  host.add("kubernetes.io/hostname", Requirement::in({"node-1"}));
  EXPECT_TRUE(pool.compatible(host).has_value());
}

TEST(RequirementsTest, ConflictingValuesAreReported) {
  Requirements pool;
  pool.add("team", Requirement::in({"a"}));
  Requirements pod;
  pod.add("team", Requirement::in({"b"}));
  EXPECT_EQ(pool.compatible(pod), "key team, In [b] not in In [a]");
}

TEST(RequirementsTest, AppendsApiFormRoundTrip) {
  std::vector<api::karpenter::NodeSelectorRequirementWithMinValues> out;
  op("NotIn", {"a"}).appendTo("k", out);
  op("Exists").appendTo("e", out);
  op("DoesNotExist").appendTo("d", out);
  Requirement().appendTo("any", out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].operator_, "NotIn");
  EXPECT_EQ(out[1].operator_, "Exists");
  EXPECT_EQ(out[2].operator_, "DoesNotExist");
  Requirements back = Requirements::fromApi(out);
  EXPECT_EQ(back.describe(), "d DoesNotExist, e Exists, k NotIn [a]");
}

}  // namespace
}  // namespace nodewright::controllers::provisioning::scheduling
