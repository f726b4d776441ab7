#include "apiserver/discovery/discovery.h"

#include <set>

#include <gtest/gtest.h>

#include "apiserver/discovery/served.h"
#include "apiserver/discovery/test_resources.h"

namespace nodewright::apiserver::discovery {
namespace {

using testing::registryResources;
using testing::sampleResources;

constexpr const char* kKubectlAccept =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/"
    "json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

const api::Json* findByKey(const api::Json& list, const char* key, std::string_view value) {
  for (const api::Json& item : list) {
    if (item.value(key, "") == value) {
      return &item;
    }
  }
  return nullptr;
}

TEST(AcceptsAggregatedTest, RecognizesTheV2MediaTypeAnywhereInTheList) {
  EXPECT_TRUE(acceptsAggregated(kKubectlAccept));
  EXPECT_TRUE(
      acceptsAggregated("application/json, application/json; as=APIGroupDiscoveryList; v=v2; "
                        "g=apidiscovery.k8s.io"));
  EXPECT_TRUE(acceptsAggregated(
      "Application/JSON;g=\"apidiscovery.k8s.io\";v=\"v2\";as=\"APIGroupDiscoveryList\""));
}

TEST(AcceptsAggregatedTest, RejectsOtherTypesVersionsAndZeroQuality) {
  EXPECT_FALSE(acceptsAggregated(""));
  EXPECT_FALSE(acceptsAggregated("application/json, */*"));
  EXPECT_FALSE(acceptsAggregated(
      "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"));
  EXPECT_FALSE(
      acceptsAggregated("application/yaml;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"));
  EXPECT_FALSE(acceptsAggregated("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroup"));
  EXPECT_FALSE(acceptsAggregated(
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0.0"));
}

TEST(VersionInfoTest, ReportsTheModelledRelease) {
  api::Json info = versionInfo();
  EXPECT_EQ(info["major"], "1");
  EXPECT_EQ(info["minor"], "32");
  EXPECT_EQ(info["gitVersion"], "v1.32.0-nodewright");
  EXPECT_TRUE(info["platform"].get<std::string>().starts_with("linux/"));
}

TEST(CoreVersionsTest, ListsV1) {
  api::Json doc = coreVersions();
  EXPECT_EQ(doc["kind"], "APIVersions");
  EXPECT_EQ(doc["versions"], api::Json::array({"v1"}));
}

TEST(GroupListTest, ListsEveryNamedGroupWithItsPreferredVersion) {
  api::Json doc = groupList(sampleResources());
  EXPECT_EQ(doc["kind"], "APIGroupList");
  EXPECT_EQ(findByKey(doc["groups"], "name", ""), nullptr);
  const api::Json* karpenter = findByKey(doc["groups"], "name", "karpenter.sh");
  ASSERT_NE(karpenter, nullptr);
  EXPECT_EQ((*karpenter)["preferredVersion"]["groupVersion"], "karpenter.sh/v1");
  ASSERT_EQ((*karpenter)["versions"].size(), 2u);
  EXPECT_EQ((*karpenter)["versions"][1]["groupVersion"], "karpenter.sh/v1alpha5");
  EXPECT_EQ((*karpenter)["versions"][1]["version"], "v1alpha5");
}

TEST(ApiGroupTest, DescribesOneGroupOrIsNotFound) {
  auto apps = apiGroup(sampleResources(), "apps");
  ASSERT_TRUE(apps.has_value());
  EXPECT_EQ((*apps)["kind"], "APIGroup");
  EXPECT_EQ((*apps)["name"], "apps");
  EXPECT_EQ((*apps)["preferredVersion"]["version"], "v1");
  EXPECT_TRUE(apiGroup(sampleResources(), "batch").error().is(core::Code::NotFound));
  EXPECT_TRUE(apiGroup(sampleResources(), "").error().is(core::Code::NotFound));
}

TEST(ResourceListTest, ListsResourcesAndSubresourcesLikeKubeApiserver) {
  auto doc = resourceList(sampleResources(), "", "v1");
  ASSERT_TRUE(doc.has_value());
  EXPECT_EQ((*doc)["kind"], "APIResourceList");
  EXPECT_EQ((*doc)["groupVersion"], "v1");
  const api::Json& list = (*doc)["resources"];
  const api::Json* pods = findByKey(list, "name", "pods");
  ASSERT_NE(pods, nullptr);
  EXPECT_EQ((*pods)["kind"], "Pod");
  EXPECT_EQ((*pods)["singularName"], "pod");
  EXPECT_EQ((*pods)["namespaced"], true);
  EXPECT_EQ((*pods)["verbs"], api::Json(resourceVerbs()));
  EXPECT_EQ((*pods)["shortNames"], api::Json::array({"po"}));
  const api::Json* eviction = findByKey(list, "name", "pods/eviction");
  ASSERT_NE(eviction, nullptr);
  EXPECT_EQ((*eviction)["group"], "policy");
  EXPECT_EQ((*eviction)["version"], "v1");
  EXPECT_EQ((*eviction)["kind"], "Eviction");
  EXPECT_EQ((*eviction)["verbs"], api::Json::array({"create"}));
  const api::Json* status = findByKey(list, "name", "pods/status");
  ASSERT_NE(status, nullptr);
  EXPECT_FALSE(status->contains("group"));
  EXPECT_EQ((*status)["kind"], "Pod");
  const api::Json* namespaces = findByKey(list, "name", "namespaces");
  ASSERT_NE(namespaces, nullptr);
  EXPECT_EQ((*namespaces)["namespaced"], false);
  EXPECT_FALSE(namespaces->contains("shortNames"));
}

TEST(ResourceListTest, GivesScaleItsAutoscalingKind) {
  auto doc = resourceList(sampleResources(), "apps", "v1");
  ASSERT_TRUE(doc.has_value());
  EXPECT_EQ((*doc)["groupVersion"], "apps/v1");
  const api::Json* scale = findByKey((*doc)["resources"], "name", "deployments/scale");
  ASSERT_NE(scale, nullptr);
  EXPECT_EQ((*scale)["group"], "autoscaling");
  EXPECT_EQ((*scale)["kind"], "Scale");
  EXPECT_EQ((*scale)["verbs"], api::Json::array({"get", "patch", "update"}));
}

TEST(ResourceListTest, IsNotFoundForAnUnservedGroupVersion) {
  EXPECT_TRUE(resourceList(sampleResources(), "apps", "v2").error().is(core::Code::NotFound));
  EXPECT_TRUE(resourceList(sampleResources(), "", "v2").error().is(core::Code::NotFound));
}

TEST(AggregatedTest, CoreDocumentHoldsOnlyTheCoreGroup) {
  api::Json doc = aggregatedCore(sampleResources());
  EXPECT_EQ(doc["kind"], "APIGroupDiscoveryList");
  EXPECT_EQ(doc["apiVersion"], "apidiscovery.k8s.io/v2");
  ASSERT_EQ(doc["items"].size(), 1u);
  EXPECT_FALSE(doc["items"][0]["metadata"].contains("name"));
  EXPECT_EQ(doc["items"][0]["versions"][0]["version"], "v1");
}

TEST(AggregatedTest, GroupsListVersionsInPreferenceOrder) {
  api::Json doc = aggregatedGroups(sampleResources());
  std::vector<std::string> names;
  for (const api::Json& g : doc["items"]) {
    names.push_back(g["metadata"]["name"]);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"apps", "apiextensions.k8s.io", "coordination.k8s.io",
                                             "cluster.x-k8s.io", "example.com", "karpenter.sh"}));
  const api::Json& karpenter = doc["items"][5]["versions"];
  ASSERT_EQ(karpenter.size(), 2u);
  EXPECT_EQ(karpenter[0]["version"], "v1");
  EXPECT_EQ(karpenter[0]["freshness"], "Current");
  EXPECT_EQ(karpenter[0]["resources"][0]["resource"], "nodepools");
  EXPECT_EQ(karpenter[1]["resources"][0]["resource"], "provisioners");
}

// client-go drops entries without responseKind; kubectl scale needs the subresource's kind.
TEST(AggregatedTest, EveryResourceAndSubresourceCarriesKindAndVerbs) {
  std::vector<ResourcePtr> resources = registryResources();
  resources.push_back(testing::pods());
  std::set<std::string> seen;
  const std::vector<api::Json> docs = {aggregatedCore(resources), aggregatedGroups(resources)};
  for (const api::Json& doc : docs) {
    for (const api::Json& group : doc["items"]) {
      for (const api::Json& version : group["versions"]) {
        for (const api::Json& r : version["resources"]) {
          EXPECT_FALSE(r["responseKind"]["kind"].get<std::string>().empty()) << r.dump();
          EXPECT_EQ(r["verbs"], api::Json(resourceVerbs()));
          EXPECT_TRUE(r["scope"] == "Namespaced" || r["scope"] == "Cluster");
          seen.insert(r["resource"].get<std::string>() + "." + group["metadata"].value("name", "") +
                      "/" + version["version"].get<std::string>());
          for (const api::Json& sub : r.value("subresources", api::Json::array())) {
            EXPECT_FALSE(sub["responseKind"]["kind"].get<std::string>().empty());
            EXPECT_FALSE(sub["verbs"].empty());
          }
        }
      }
    }
  }
  for (const ResourcePtr& r : resources) {
    EXPECT_TRUE(seen.count(r->plural + "." + r->group + "/" + r->version)) << r->plural;
  }
}

}  // namespace
}  // namespace nodewright::apiserver::discovery
