#include "apiserver/discovery/served.h"

#include <gtest/gtest.h>

#include "apiserver/discovery/test_resources.h"

namespace nodewright::apiserver::discovery {
namespace {

using testing::makeResource;
using testing::sampleResources;

std::vector<std::string> groupNames(const std::vector<ServedGroup>& groups) {
  std::vector<std::string> names;
  for (const ServedGroup& g : groups) {
    names.push_back(g.name);
  }
  return names;
}

TEST(ServedGroupsTest, OrdersCoreThenBuiltinThenOthersAlphabetically) {
  EXPECT_EQ(groupNames(servedGroups(sampleResources())),
            (std::vector<std::string>{"", "apps", "apiextensions.k8s.io", "coordination.k8s.io",
                                      "cluster.x-k8s.io", "example.com", "karpenter.sh"}));
}

TEST(ServedGroupsTest, ListsVersionsByPriorityOnce) {
  std::vector<ResourcePtr> resources = {
      makeResource("g.io", "v1alpha1", "A", "as", false),
      makeResource("g.io", "v1beta2", "A", "as", false),
      makeResource("g.io", "v1", "A", "as", false),
      makeResource("g.io", "v1", "B", "bs", false),
      makeResource("g.io", "v2beta1", "A", "as", false),
  };
  std::vector<ServedGroup> groups = servedGroups(resources);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].versions, (std::vector<std::string>{"v1", "v2beta1", "v1beta2", "v1alpha1"}));
}

TEST(ServedGroupsTest, SkipsNullResources) {
  std::vector<ResourcePtr> resources = {nullptr, makeResource("", "v1", "Pod", "pods", true)};
  EXPECT_EQ(groupNames(servedGroups(resources)), (std::vector<std::string>{""}));
}

TEST(ResourcesOfTest, ReturnsOneGroupVersionSortedByPlural) {
  std::vector<ResourcePtr> found = resourcesOf(sampleResources(), "", "v1");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0]->plural, "namespaces");
  EXPECT_EQ(found[1]->plural, "pods");
  EXPECT_TRUE(resourcesOf(sampleResources(), "karpenter.sh", "v2").empty());
}

TEST(SubresourcesOfTest, GivesEachSubresourceItsKindAndVerbs) {
  std::vector<Subresource> subs = subresourcesOf(*testing::pods());
  ASSERT_EQ(subs.size(), 3u);
  EXPECT_EQ(subs[0].name, "binding");
  EXPECT_EQ(subs[0].kind, "Binding");
  EXPECT_EQ(subs[0].verbs, std::vector<std::string>{"create"});
  EXPECT_EQ(subs[1].name, "eviction");
  EXPECT_EQ(subs[1].group, "policy");
  EXPECT_EQ(subs[1].kind, "Eviction");
  EXPECT_EQ(subs[2].name, "status");
  EXPECT_EQ(subs[2].kind, "Pod");
  EXPECT_EQ(subs[2].verbs, (std::vector<std::string>{"get", "patch", "update"}));

  std::vector<Subresource> scale = subresourcesOf(*testing::deployments());
  ASSERT_EQ(scale.size(), 2u);
  EXPECT_EQ(scale[0].name, "scale");
  EXPECT_EQ(scale[0].group, "autoscaling");
  EXPECT_EQ(scale[0].version, "v1");
  EXPECT_EQ(scale[0].kind, "Scale");
}

TEST(SubresourcesOfTest, LeavesOutUnknownAndDuplicateNames) {
  auto r = makeResource("", "v1", "Pod", "pods", true, {"log", "status", "status", "exec"});
  std::vector<Subresource> subs = subresourcesOf(*r);
  ASSERT_EQ(subs.size(), 1u);
  EXPECT_EQ(subs[0].name, "status");
}

TEST(ResourceVerbsTest, AreTheEightRestVerbs) {
  EXPECT_EQ(resourceVerbs(), (std::vector<std::string>{"create", "delete", "deletecollection",
                                                       "get", "list", "patch", "update", "watch"}));
}

}  // namespace
}  // namespace nodewright::apiserver::discovery
