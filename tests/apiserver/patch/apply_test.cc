#include "apiserver/patch/apply.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "api/reflect/operations.h"
#include "api/registry.h"

namespace nodewright::apiserver::patch {
namespace {

using api::Json;

// A custom resource's schema exercising every list and map semantic.
constexpr std::string_view kWidgetSchema = R"({
  "type": "object",
  "properties": {
    "metadata": {"type": "object"},
    "spec": {"type": "object", "properties": {
      "ports": {"type": "array", "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["port", "protocol"],
                "items": {"type": "object", "properties": {
                  "port": {"type": "integer"},
                  "protocol": {"type": "string", "default": "TCP"},
                  "name": {"type": "string"}}}},
      "rules": {"type": "array", "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "properties": {"name": {"type": "string"},
                  "verbs": {"type": "array", "x-kubernetes-list-type": "set",
                            "items": {"type": "string"}}}}},
      "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
      "args": {"type": "array", "items": {"type": "string"}},
      "selector": {"type": "object", "x-kubernetes-map-type": "atomic"},
      "labels": {"type": "object", "additionalProperties": {"type": "string"}}}}
  }
})";

class ApplyTest : public testing::Test {
 protected:
  Json applyWidget(std::string_view live, std::string_view applied) {
    auto result = applyServerSide(Json::parse(live), Json::parse(applied),
                                  Json::parse(kWidgetSchema), "example.com", "Widget");
    EXPECT_TRUE(result.has_value()) << result.error().message();
    return result.value_or(Json());
  }

  std::string widgetError(std::string_view live, std::string_view applied) {
    auto result = applyServerSide(Json::parse(live), Json::parse(applied),
                                  Json::parse(kWidgetSchema), "example.com", "Widget");
    if (result.has_value()) {
      ADD_FAILURE() << "applied: " << result->dump();
      return "";
    }
    EXPECT_TRUE(result.error().is(core::Code::Invalid));
    return result.error().message();
  }
};

TEST_F(ApplyTest, CreatesFromNothing) {
  Json result = applyWidget("null", R"({"kind":"Widget","spec":{"tags":["a"],"gone":null}})");
  EXPECT_EQ(result, Json::parse(R"({"kind":"Widget","spec":{"tags":["a"]}})"));
}

TEST_F(ApplyTest, MergesMapsKeepingLiveFieldsAndOrder) {
  Json result = applyWidget(R"({"kind":"Widget","metadata":{"name":"w","uid":"1"},
                                "spec":{"labels":{"a":"1"},"args":["x"]},"status":{"ok":true}})",
                            R"({"metadata":{"name":"w","labels":{"l":"1"}},
                                "spec":{"labels":{"b":"2"}}})");
  EXPECT_EQ(result.dump(), Json::parse(R"({"kind":"Widget",
      "metadata":{"name":"w","uid":"1","labels":{"l":"1"}},
      "spec":{"labels":{"a":"1","b":"2"},"args":["x"]},"status":{"ok":true}})")
                               .dump());
}

TEST_F(ApplyTest, NullRemovesField) {
  Json result = applyWidget(R"({"spec":{"labels":{"a":"1","b":"2"},"args":["x"]}})",
                            R"({"spec":{"labels":{"a":null},"args":null}})");
  EXPECT_EQ(result, Json::parse(R"({"spec":{"labels":{"b":"2"}}})"));
}

TEST_F(ApplyTest, MergesListMapByCompositeKeyWithDefaults) {
  Json result = applyWidget(R"({"spec":{"ports":[{"port":80,"protocol":"TCP","name":"http"},
                                                 {"port":53,"protocol":"UDP"}]}})",
                            R"({"spec":{"ports":[{"port":443,"name":"https"},
                                                 {"port":80,"name":"web"}]}})");
  EXPECT_EQ(result["spec"]["ports"], Json::parse(R"([
      {"port":80,"protocol":"TCP","name":"web"},
      {"port":53,"protocol":"UDP"},
      {"port":443,"name":"https"}])"));
}

TEST_F(ApplyTest, MergesNestedSetsInsideListMapItems) {
  Json result = applyWidget(R"({"spec":{"rules":[{"name":"r","verbs":["get"]}]}})",
                            R"({"spec":{"rules":[{"name":"r","verbs":["list","get"]}]}})");
  EXPECT_EQ(result["spec"]["rules"], Json::parse(R"([{"name":"r","verbs":["get","list"]}])"));
}

TEST_F(ApplyTest, UnionsSets) {
  Json result = applyWidget(R"({"spec":{"tags":["a","b"]}})", R"({"spec":{"tags":["c","a"]}})");
  EXPECT_EQ(result["spec"]["tags"], Json::parse(R"(["a","b","c"])"));
}

TEST_F(ApplyTest, ReplacesAtomicListsAndMaps) {
  Json result = applyWidget(R"({"spec":{"args":["x","y"],"selector":{"a":"1"}}})",
                            R"({"spec":{"args":["z"],"selector":{"b":"2"}}})");
  EXPECT_EQ(result["spec"], Json::parse(R"({"args":["z"],"selector":{"b":"2"}})"));
}

TEST_F(ApplyTest, MergesFinalizersAndOwnerReferencesOfAnyKind) {
  Json result = applyWidget(
      R"({"metadata":{"finalizers":["a"],"ownerReferences":[{"uid":"1","name":"x"}]}})",
      R"({"metadata":{"finalizers":["b"],"ownerReferences":[{"uid":"1","controller":true},
                                                            {"uid":"2","name":"y"}]}})");
  EXPECT_EQ(result["metadata"], Json::parse(R"({"finalizers":["a","b"],
      "ownerReferences":[{"uid":"1","name":"x","controller":true},{"uid":"2","name":"y"}]})"));
}

TEST_F(ApplyTest, UsesStrategicKeysForBuiltinKindsWithoutListTypes) {
  auto result = applyServerSide(Json::parse(R"({"spec":{"template":{"spec":{"containers":[
          {"name":"app","image":"a:1","env":[{"name":"A","value":"1"}]},
          {"name":"injected","image":"proxy"}],"tolerations":[{"key":"x"}]}}}})"),
                                Json::parse(R"({"spec":{"template":{"spec":{"containers":[
          {"name":"app","image":"a:2","env":[{"name":"B","value":"2"}]}],
          "tolerations":[{"key":"y"}]}}}})"),
                                Json::object(), "apps", "Deployment");
  ASSERT_TRUE(result.has_value()) << result.error().message();
  EXPECT_EQ((*result)["spec"]["template"]["spec"], Json::parse(R"({"containers":[
      {"name":"app","image":"a:2","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]},
      {"name":"injected","image":"proxy"}],"tolerations":[{"key":"y"}]})"));
}

TEST_F(ApplyTest, FollowsModelSchemaOfPod) {
  const api::KindInfo* pod = api::builtinRegistry().lookup("pod");
  ASSERT_NE(pod, nullptr);
  Json schema = api::reflect::openApiSchema(*pod->type);
  auto result = applyServerSide(Json::parse(R"({"spec":{"topologySpreadConstraints":[
          {"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule","maxSkew":1}]}})"),
                                Json::parse(R"({"spec":{"topologySpreadConstraints":[
          {"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway","maxSkew":2},
          {"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule","maxSkew":3}]}})"),
                                schema, "", "Pod");
  ASSERT_TRUE(result.has_value()) << result.error().message();
  EXPECT_EQ((*result)["spec"]["topologySpreadConstraints"], Json::parse(R"([
      {"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule","maxSkew":3},
      {"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway","maxSkew":2}])"));
}

TEST_F(ApplyTest, RejectsAppliedValueThatIsNotAnObject) {
  auto result = applyServerSide(Json::object(), Json::parse("[1]"), Json::object(), "", "Pod");
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().message(), "apply patch must be an object, got [1]");
}

TEST_F(ApplyTest, RejectsListMapItemWithoutKey) {
  EXPECT_EQ(widgetError("{}", R"({"spec":{"rules":[{"verbs":["get"]}]}})"),
            ".spec.rules: element 0: associative list with keys has an element that omits key "
            "field \"name\" (and doesn't have default value)");
  EXPECT_EQ(widgetError("{}", R"({"spec":{"rules":["r"]}})"),
            ".spec.rules: element 0: expected a map, got \"r\"");
}

TEST_F(ApplyTest, RejectsDuplicateEntries) {
  EXPECT_EQ(widgetError("{}", R"({"spec":{"ports":[{"port":1},{"port":1,"protocol":"TCP"}]}})"),
            ".spec.ports: duplicate entries for key [port=1,protocol=\"TCP\"]");
  EXPECT_EQ(widgetError("{}", R"({"spec":{"tags":["a","a"]}})"),
            ".spec.tags: duplicate entries for key [=\"a\"]");
}

TEST_F(ApplyTest, ReportsErrorsBelowListItemsWithTheirKey) {
  EXPECT_EQ(widgetError("{}", R"({"spec":{"rules":[{"name":"r","verbs":["get","get"]}]}})"),
            ".spec.rules[name=\"r\"].verbs: duplicate entries for key [=\"get\"]");
}

}  // namespace
}  // namespace nodewright::apiserver::patch
