#include "apiserver/patch/strategic_merge.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace nodewright::apiserver::patch {
namespace {

using api::Json;

class StrategicMergeTest : public testing::Test {
 protected:
  // Patches a Pod; the expected result is compared with key order.
  void expectPod(std::string_view original, std::string_view patch, std::string_view expected) {
    auto result = applyStrategicMergePatch("", "Pod", Json::parse(original), Json::parse(patch));
    ASSERT_TRUE(result.has_value()) << result.error().message();
    EXPECT_EQ(result->dump(), Json::parse(expected).dump());
  }

  std::string podError(std::string_view original, std::string_view patch) {
    auto result = applyStrategicMergePatch("", "Pod", Json::parse(original), Json::parse(patch));
    if (result.has_value()) {
      ADD_FAILURE() << "patch applied: " << result->dump();
      return "";
    }
    EXPECT_TRUE(result.error().is(core::Code::Invalid));
    return result.error().message();
  }
};

TEST_F(StrategicMergeTest, ServesBuiltinKindsOnly) {
  EXPECT_TRUE(isStrategicKind("", "Pod"));
  EXPECT_TRUE(isStrategicKind("", "Node"));
  EXPECT_TRUE(isStrategicKind("apps", "DaemonSet"));
  EXPECT_TRUE(isStrategicKind("coordination.k8s.io", "Lease"));
  EXPECT_TRUE(isStrategicKind("policy", "PodDisruptionBudget"));
  EXPECT_FALSE(isStrategicKind("karpenter.sh", "NodePool"));
  EXPECT_FALSE(isStrategicKind("", "Deployment"));
}

TEST_F(StrategicMergeTest, RejectsCustomResourcesAsUnsupportedMediaType) {
  auto result = applyStrategicMergePatch("karpenter.sh", "NodePool", Json::object(),
                                         Json::parse(R"({"spec":{}})"));
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().message(),
            "the body of the request was in an unknown format - accepted media types include: "
            "application/json-patch+json, application/merge-patch+json, "
            "application/apply-patch+yaml");
}

TEST_F(StrategicMergeTest, RejectsPatchThatIsNotAnObject) {
  EXPECT_EQ(podError(R"({})", R"([1])"), "invalid JSON document");
}

TEST_F(StrategicMergeTest, MergesMapsAndDeletesNulls) {
  expectPod(R"({"metadata":{"name":"p","labels":{"a":"1","b":"2"}},"spec":{"nodeName":"n"}})",
            R"({"metadata":{"labels":{"a":null,"c":"3"},"missing":null},"spec":{"nodeName":"m"}})",
            R"({"metadata":{"name":"p","labels":{"b":"2","c":"3"}},"spec":{"nodeName":"m"}})");
}

TEST_F(StrategicMergeTest, ReplacesListsWithoutStrategy) {
  expectPod(R"({"spec":{"tolerations":[{"key":"a"}],"containers":[{"name":"c","args":["x"]}]}})",
            R"({"spec":{"tolerations":[{"key":"b"}],"containers":[{"name":"c","args":["y"]}]}})",
            R"({"spec":{"tolerations":[{"key":"b"}],"containers":[{"name":"c","args":["y"]}]}})");
}

// apimachinery's normalizeElementOrder: patch items in patch order, interleaved with the
// server-only ones by live position; an item new to the server goes first.
TEST_F(StrategicMergeTest, MergesContainersByNameNewOnesFirst) {
  expectPod(R"({"spec":{"containers":[{"name":"a","image":"x"},{"name":"b","image":"y"}]}})",
            R"({"spec":{"containers":[{"name":"c","image":"z"},{"name":"b","image":"y2"}]}})",
            R"({"spec":{"containers":[{"name":"c","image":"z"},{"name":"a","image":"x"},
                                      {"name":"b","image":"y2"}]}})");
}

TEST_F(StrategicMergeTest, MergesPortsByContainerPort) {
  expectPod(
      R"({"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"name":"http"}]}]}})",
      R"({"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"hostPort":8080}]}]}})",
      R"({"spec":{"containers":[{"name":"a",
                "ports":[{"containerPort":80,"name":"http","hostPort":8080}]}]}})");
}

TEST_F(StrategicMergeTest, MergesStatusConditionsByType) {
  expectPod(R"({"status":{"conditions":[{"type":"Ready","status":"False"},
                                        {"type":"PodScheduled","status":"True"}]}})",
            R"({"status":{"conditions":[{"type":"Ready","status":"True"}]}})",
            R"({"status":{"conditions":[{"type":"Ready","status":"True"},
                                        {"type":"PodScheduled","status":"True"}]}})");
}

TEST_F(StrategicMergeTest, UnionsPrimitiveMergeLists) {
  expectPod(R"({"metadata":{"finalizers":["a","b"]}})", R"({"metadata":{"finalizers":["b","c"]}})",
            R"({"metadata":{"finalizers":["a","b","c"]}})");
}

TEST_F(StrategicMergeTest, MergesOwnerReferencesByUid) {
  expectPod(R"({"metadata":{"ownerReferences":[{"uid":"1","name":"rs"}]}})",
            R"({"metadata":{"ownerReferences":[{"uid":"1","controller":true}]}})",
            R"({"metadata":{"ownerReferences":[{"uid":"1","name":"rs","controller":true}]}})");
}

TEST_F(StrategicMergeTest, ReplaceDirectiveReplacesMap) {
  expectPod(R"({"metadata":{"labels":{"a":"1","b":"2"}}})",
            R"({"metadata":{"labels":{"$patch":"replace","c":"3"}}})",
            R"({"metadata":{"labels":{"c":"3"}}})");
}

TEST_F(StrategicMergeTest, DeleteDirectiveEmptiesMap) {
  expectPod(R"({"spec":{"nodeSelector":{"a":"1"},"nodeName":"n"}})",
            R"({"spec":{"nodeSelector":{"$patch":"delete"}}})",
            R"({"spec":{"nodeSelector":{},"nodeName":"n"}})");
}

TEST_F(StrategicMergeTest, MergeDirectiveIsTheDefault) {
  expectPod(R"({"metadata":{"labels":{"a":"1"}}})",
            R"({"metadata":{"labels":{"$patch":"merge","b":"2"}}})",
            R"({"metadata":{"labels":{"a":"1","b":"2"}}})");
}

TEST_F(StrategicMergeTest, ReplaceItemReplacesWholeList) {
  expectPod(R"({"spec":{"containers":[{"name":"a","image":"x"},{"name":"b"}]}})",
            R"({"spec":{"containers":[{"$patch":"replace"},{"name":"c","image":"z"}]}})",
            R"({"spec":{"containers":[{"name":"c","image":"z"}]}})");
}

TEST_F(StrategicMergeTest, RetainKeysClearsUnlistedFields) {
  expectPod(R"({"spec":{"volumes":[{"name":"v","emptyDir":{}}]}})",
            R"({"spec":{"volumes":[{"name":"v","$retainKeys":["name","hostPath"],
                                    "hostPath":{"path":"/d"}}]}})",
            R"({"spec":{"volumes":[{"name":"v","hostPath":{"path":"/d"}}]}})");
}

TEST_F(StrategicMergeTest, AppliesDirectivesInValuesNewToTheObject) {
  expectPod(R"({"spec":{}})",
            R"({"spec":{"volumes":[{"name":"v","$patch":"delete"}],
                        "nodeSelector":{"$patch":"replace","a":"1","b":null}}})",
            R"({"spec":{"volumes":[],"nodeSelector":{"a":"1"}}})");
}

TEST_F(StrategicMergeTest, PatchValueOfOtherTypeReplaces) {
  expectPod(R"({"metadata":{"labels":"oops"},"spec":{"containers":{"a":1}}})",
            R"({"metadata":{"labels":{"a":"1","b":null}},"spec":{"containers":[{"name":"c"}]}})",
            R"({"metadata":{"labels":{"a":"1"}},"spec":{"containers":[{"name":"c"}]}})");
}

TEST_F(StrategicMergeTest, SetElementOrderOrdersPrimitiveList) {
  expectPod(R"({"metadata":{"finalizers":["a","b"]}})",
            R"({"metadata":{"$setElementOrder/finalizers":["c","b"],"finalizers":["c"],
                            "$deleteFromPrimitiveList/finalizers":["a"]}})",
            R"({"metadata":{"finalizers":["c","b"]}})");
}

TEST_F(StrategicMergeTest, SetElementOrderWithoutListReordersLiveItems) {
  expectPod(R"({"spec":{"containers":[{"name":"a"},{"name":"b"}]}})",
            R"({"spec":{"$setElementOrder/containers":[{"name":"b"},{"name":"a"}]}})",
            R"({"spec":{"containers":[{"name":"b"},{"name":"a"}]}})");
}

TEST_F(StrategicMergeTest, SetElementOrderOnReplacedListIsDropped) {
  expectPod(
      R"({"spec":{"tolerations":[{"key":"a"}]}})",
      R"({"spec":{"$setElementOrder/tolerations":[{"key":"b"}],"tolerations":[{"key":"b"}]}})",
      R"({"spec":{"tolerations":[{"key":"b"}]}})");
}

TEST_F(StrategicMergeTest, UnknownPatchTypeFails) {
  EXPECT_EQ(podError(R"({})", R"({"metadata":{"$patch":"shred"}})"),
            R"(unknown patch type: shred in map: {"$patch":"shred"})");
  EXPECT_EQ(podError(R"({})", R"({"spec":{"containers":[{"name":"a","$patch":"shred"}]}})"),
            R"(unknown patch type: shred in map: {"name":"a","$patch":"shred"})");
}

TEST_F(StrategicMergeTest, ItemWithoutMergeKeyFails) {
  EXPECT_EQ(podError(R"({"spec":{"containers":[{"name":"a"}]}})",
                     R"({"spec":{"containers":[{"image":"x"}]}})"),
            R"(map: {"image":"x"} does not contain declared merge key: name)");
  EXPECT_EQ(podError(R"({})", R"({"spec":{"containers":[{"$patch":"delete"}]}})"),
            R"(map: {"$patch":"delete"} does not contain declared merge key: name)");
}

TEST_F(StrategicMergeTest, ListsOfListsFail) {
  EXPECT_EQ(
      podError(R"({"metadata":{"finalizers":["a"]}})", R"({"metadata":{"finalizers":[["b"]]}})"),
      "lists of lists are not supported");
}

TEST_F(StrategicMergeTest, MalformedRetainKeysFails) {
  EXPECT_EQ(podError(R"({})", R"({"spec":{"$retainKeys":"nodeName"}})"),
            "invalid patch format of retainKeys");
  EXPECT_EQ(podError(R"({})", R"({"spec":{"$retainKeys":["a"],"nodeName":"n"}})"),
            "patch content doesn't match retainKeys list");
}

TEST_F(StrategicMergeTest, MalformedParallelListsFail) {
  EXPECT_EQ(podError(R"({})", R"({"metadata":{"$deleteFromPrimitiveList":["a"]}})"),
            "invalid patch format of primitive list");
  EXPECT_EQ(podError(R"({})", R"({"metadata":{"$deleteFromPrimitiveList/finalizers":"a"}})"),
            "invalid patch format of primitive list");
  EXPECT_EQ(podError(R"({})", R"({"metadata":{"$setElementOrder":["a"]}})"),
            "invalid patch format of setElementOrder list");
  EXPECT_EQ(podError(R"({})", R"({"metadata":{"$setElementOrder/finalizers":{}}})"),
            "invalid patch format of setElementOrder list");
}

TEST_F(StrategicMergeTest, SetElementOrderContradictingPatchFails) {
  EXPECT_EQ(podError(R"({})", R"({"spec":{"$setElementOrder/containers":[{"name":"a"}],
                                          "containers":[{"name":"b"}]}})"),
            "The order in patch list:\n[{\"name\":\"b\"}]\n doesn't match $setElementOrder "
            "list:\n[{\"name\":\"a\"}]\n");
}

TEST_F(StrategicMergeTest, LeavesOriginalUntouched) {
  Json original = Json::parse(R"({"metadata":{"labels":{"a":"1"}}})");
  auto result =
      applyStrategicMergePatch("", "Pod", original, Json::parse(R"({"metadata":{"labels":null}})"));
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(*result, Json::parse(R"({"metadata":{}})"));
  EXPECT_EQ(original, Json::parse(R"({"metadata":{"labels":{"a":"1"}}})"));
}

}  // namespace
}  // namespace nodewright::apiserver::patch
