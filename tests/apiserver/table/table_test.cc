#include "apiserver/table/table.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace nodewright::apiserver {
namespace {

using api::Json;

const core::TimePoint kNow = core::Time::parse("2024-05-01T12:00:00Z")->point();

Resource customResource(std::vector<api::PrinterColumn> columns, bool namespaced = true) {
  Resource r;
  r.group = "karpenter.sh";
  r.version = "v1";
  r.kind = "NodePool";
  r.plural = "nodepools";
  r.namespaced = namespaced;
  r.custom = true;
  r.printerColumns = std::move(columns);
  return r;
}

Json nodePool() {
  return Json::parse(R"({
    "apiVersion": "karpenter.sh/v1", "kind": "NodePool",
    "metadata": {"name": "default", "resourceVersion": "42", "uid": "u-1",
                 "creationTimestamp": "2024-05-01T11:57:00Z", "labels": {"a": "b"}},
    "spec": {"weight": 10, "ratio": 1.5, "big": 1000000.0, "tiny": 0.00001, "mid": 123456.0,
             "paused": false, "limits": {"memory": "10Gi", "cpu": 8},
             "zones": ["z1", "z2"], "html": "<a&b>", "when": "2024-05-01T10:00:00Z",
             "badWhen": "soon", "emptyWhen": "", "nothing": null},
    "status": {"conditions": [{"type": "Ready", "status": "True"}]}
  })");
}

Json firstRowCells(const Json& table) {
  return table.at("rows").at(0).at("cells");
}

TEST(ParseIncludeObjectTest, AcceptsKubeValues) {
  EXPECT_EQ(parseIncludeObject(""), IncludeObject::Metadata);
  EXPECT_EQ(parseIncludeObject("Metadata"), IncludeObject::Metadata);
  EXPECT_EQ(parseIncludeObject("None"), IncludeObject::None);
  EXPECT_EQ(parseIncludeObject("Object"), IncludeObject::Object);
}

TEST(ParseIncludeObjectTest, RejectsOthersWithKubeMessage) {
  auto result = parseIncludeObject("Everything");
  ASSERT_FALSE(result.has_value());
  EXPECT_TRUE(result.error().is(core::Code::Invalid));
  EXPECT_EQ(result.error().message(),
            "Unable to convert to Table as requested: includeObject: Invalid value: "
            "\"Everything\": must be 'Metadata', 'Object', 'None', or empty");
  EXPECT_FALSE(parseIncludeObject("object").has_value());
}

TEST(CustomResourceTableTest, PrintsColumnsByType) {
  const Resource resource = customResource({
      {"Weight", "integer", ".spec.weight", "", 0},
      {"Ratio", "integer", ".spec.ratio", "", 0},
      {"RatioNumber", "number", ".spec.ratio", "", 0},
      {"Paused", "boolean", ".spec.paused", "", 0},
      {"Ready", "string", R"(.status.conditions[?(@.type=="Ready")].status)", "", 0},
      {"Age", "date", ".metadata.creationTimestamp", "", 0},
      {"When", "date", ".spec.when", "Last run", 1},
  });
  auto table = objectTable(resource, nodePool(), kNow);
  ASSERT_TRUE(table.has_value()) << table.error().message();
  EXPECT_EQ(firstRowCells(*table), Json::parse(R"(["default", 10, 1, 1.5, false, "True", "3m",
                                                   "120m"])"));
  const Json& columns = table->at("columnDefinitions");
  ASSERT_EQ(columns.size(), 8U);
  EXPECT_EQ(columns[0], Json::parse(R"({"name": "Name", "type": "string", "format": "name",
      "description": "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names",
      "priority": 0})"));
  EXPECT_EQ(columns[1].at("description"),
            "Custom resource definition column (in JSONPath format): .spec.weight");
  EXPECT_EQ(columns[7], Json::parse(R"({"name": "When", "type": "date", "format": "",
                                        "description": "Last run", "priority": 1})"));
}

TEST(CustomResourceTableTest, StringColumnsPrintValuesAsClientGoJsonPathDoes) {
  const Resource resource = customResource({
      {"Weight", "string", ".spec.weight", "", 0},
      {"Ratio", "string", ".spec.ratio", "", 0},
      {"Big", "string", ".spec.big", "", 0},
      {"Tiny", "string", ".spec.tiny", "", 0},
      {"Mid", "string", ".spec.mid", "", 0},
      {"Paused", "string", ".spec.paused", "", 0},
      {"Limits", "string", ".spec.limits", "", 0},
      {"Zones", "string", ".spec.zones", "", 0},
      {"Zone", "string", ".spec.zones[*]", "", 0},
      {"Html", "string", ".spec", "", 0},
      {"Nothing", "string", ".spec.nothing", "", 0},
  });
  auto table = objectTable(resource, nodePool(), kNow);
  ASSERT_TRUE(table.has_value());
  const Json cells = firstRowCells(*table);
  EXPECT_EQ(cells[1], "10");
  EXPECT_EQ(cells[2], "1.5");
  EXPECT_EQ(cells[3], "1e+06");
  EXPECT_EQ(cells[4], "1e-05");
  EXPECT_EQ(cells[5], "123456");
  EXPECT_EQ(cells[6], "false");
  EXPECT_EQ(cells[7], R"({"cpu":8,"memory":"10Gi"})");  // keys sorted, as Go maps marshal
  EXPECT_EQ(cells[8], R"(["z1","z2"])");
  EXPECT_EQ(cells[9], "z1");  // only the first match is printed
  EXPECT_NE(cells[10].get<std::string>().find(R"("html":"\u003ca\u0026b\u003e")"),
            std::string::npos);
  EXPECT_EQ(cells[11], "<no value>");
}

TEST(CustomResourceTableTest, MissingAndMistypedValuesAreNull) {
  const Resource resource = customResource({
      {"Missing", "string", ".spec.missing", "", 0},
      {"NotInt", "integer", ".spec.zones", "", 0},
      {"NotBool", "boolean", ".spec.weight", "", 0},
      {"NotDate", "date", ".spec.weight", "", 0},
      {"BadDate", "date", ".spec.badWhen", "", 0},
      {"EmptyDate", "date", ".spec.emptyWhen", "", 0},
      {"OddType", "widget", ".spec.weight", "", 0},
      {"OutOfRange", "string", ".spec.zones[5]", "", 0},
  });
  auto table = objectTable(resource, nodePool(), kNow);
  ASSERT_TRUE(table.has_value());
  EXPECT_EQ(firstRowCells(*table),
            Json::parse(R"(["default", null, null, null, null, "<invalid>", "<unknown>", null,
                            null])"));
}

TEST(CustomResourceTableTest, WithoutColumnsPrintsNameAndAge) {
  auto table = objectTable(customResource({}), nodePool(), kNow);
  ASSERT_TRUE(table.has_value());
  const Json& columns = table->at("columnDefinitions");
  ASSERT_EQ(columns.size(), 2U);
  EXPECT_EQ(columns[1].at("name"), "Age");
  EXPECT_EQ(columns[1].at("type"), "date");
  EXPECT_EQ(firstRowCells(*table), Json::parse(R"(["default", "3m"])"));
}

TEST(CustomResourceTableTest, ColumnsStopAtTheFirstUnparsablePath) {
  auto table = objectTable(customResource({{"Weight", "integer", ".spec.weight", "", 0},
                                           {"Broken", "string", ".spec[", "", 0},
                                           {"After", "string", ".metadata.name", "", 0}}),
                           nodePool(), kNow);
  ASSERT_TRUE(table.has_value());
  EXPECT_EQ(table->at("columnDefinitions").size(), 2U);
  EXPECT_EQ(firstRowCells(*table), Json::parse(R"(["default", 10])"));
}

TEST(TableTest, ObjectTableCarriesTheObjectsResourceVersion) {
  auto table = objectTable(customResource({}), nodePool(), kNow);
  ASSERT_TRUE(table.has_value());
  EXPECT_EQ(table->at("kind"), "Table");
  EXPECT_EQ(table->at("apiVersion"), "meta.k8s.io/v1");
  EXPECT_EQ(table->at("metadata"), Json::parse(R"({"resourceVersion": "42"})"));
}

TEST(TableTest, ListTableCarriesListMetadata) {
  const std::vector<Json> items = {nodePool(), nodePool()};
  auto table = listTable(customResource({}), items, {"100", "token", 7}, kNow);
  ASSERT_TRUE(table.has_value());
  EXPECT_EQ(table->at("metadata"), Json::parse(R"({"resourceVersion": "100", "continue": "token",
                            "remainingItemCount": 7})"));
  EXPECT_EQ(table->at("rows").size(), 2U);
}

TEST(TableTest, EmptyListHasNoRowsAndEmptyMetadata) {
  auto table = listTable(customResource({}), {}, {}, kNow);
  ASSERT_TRUE(table.has_value());
  EXPECT_EQ(table->at("metadata"), Json::object());
  EXPECT_EQ(table->at("rows"), Json::array());
  EXPECT_EQ(table->at("columnDefinitions").size(), 2U);
}

TEST(TableTest, RowsCarryPartialObjectMetadataByDefault) {
  auto table = objectTable(customResource({}), nodePool(), kNow);
  ASSERT_TRUE(table.has_value());
  const Json& object = table->at("rows").at(0).at("object");
  EXPECT_EQ(object.at("kind"), "PartialObjectMetadata");
  EXPECT_EQ(object.at("apiVersion"), "meta.k8s.io/v1");
  EXPECT_EQ(object.at("metadata"), nodePool().at("metadata"));
  EXPECT_FALSE(object.contains("spec"));
}

TEST(TableTest, IncludeObjectSelectsWhatRowsCarry) {
  auto none = objectTable(customResource({}), nodePool(), kNow, {IncludeObject::None});
  ASSERT_TRUE(none.has_value());
  const Json& row = none->at("rows").at(0);
  ASSERT_TRUE(row.contains("object"));
  EXPECT_TRUE(row.at("object").is_null());
  EXPECT_FALSE(row.contains("conditions"));

  auto whole = objectTable(customResource({}), nodePool(), kNow, {IncludeObject::Object});
  ASSERT_TRUE(whole.has_value());
  EXPECT_EQ(whole->at("rows").at(0).at("object"), nodePool());
}

TEST(TableTest, V1beta1TablesUseThatVersionThroughout) {
  auto table = objectTable(customResource({}), nodePool(), kNow,
                           {IncludeObject::Metadata, "meta.k8s.io/v1beta1"});
  ASSERT_TRUE(table.has_value());
  EXPECT_EQ(table->at("apiVersion"), "meta.k8s.io/v1beta1");
  EXPECT_EQ(table->at("rows").at(0).at("object").at("apiVersion"), "meta.k8s.io/v1beta1");
}

TEST(TableTest, MalformedObjectsStillPrint) {
  auto table = objectTable(customResource({{"W", "integer", ".spec.weight", "", 0}}),
                           Json::parse(R"({"metadata": "oops", "spec": 3})"), kNow);
  ASSERT_TRUE(table.has_value());
  EXPECT_EQ(firstRowCells(*table), Json::parse(R"(["", null])"));
  EXPECT_EQ(table->at("rows").at(0).at("object").at("metadata"), "oops");
}

TEST(TableTest, CustomResourceDefinitionsPrintNameAndCreatedAt) {
  Resource crd;
  crd.group = "apiextensions.k8s.io";
  crd.version = "v1";
  crd.kind = "CustomResourceDefinition";
  const Json object = Json::parse(R"({"metadata": {"name": "nodepools.karpenter.sh",
      "creationTimestamp": "2024-04-30T08:15:30.250000Z"}})");
  auto table = objectTable(crd, object, kNow);
  ASSERT_TRUE(table.has_value());
  EXPECT_EQ(table->at("columnDefinitions")[1].at("name"), "Created At");
  EXPECT_EQ(table->at("columnDefinitions")[1].at("type"), "date");
  EXPECT_EQ(firstRowCells(*table),
            Json::parse(R"(["nodepools.karpenter.sh", "2024-04-30T08:15:30Z"])"));

  auto undated = objectTable(crd, Json::parse(R"({"metadata": {"name": "x"}})"), kNow);
  ASSERT_TRUE(undated.has_value());
  EXPECT_EQ(firstRowCells(*undated), Json::parse(R"(["x", "0001-01-01T00:00:00Z"])"));
}

TEST(TableTest, BuiltinKindsWithoutAPrinterUseTheirColumns) {
  Resource resource = customResource({{"Phase", "string", ".status.phase", "", 0}});
  resource.custom = false;
  resource.group = "example.io";
  resource.kind = "Widget";
  auto table = objectTable(resource, Json::parse(R"({"metadata": {"name": "w"},
                                                     "status": {"phase": "On"}})"),
                           kNow);
  ASSERT_TRUE(table.has_value());
  EXPECT_EQ(firstRowCells(*table), Json::parse(R"(["w", "On"])"));
}

TEST(TableTest, CustomKindsNamedLikeBuiltinsUseTheirColumns) {
  Resource resource = customResource({{"Phase", "string", ".status.phase", "", 0}});
  resource.group = "";
  resource.kind = "Pod";
  auto table = objectTable(resource, Json::parse(R"({"metadata": {"name": "p"}})"), kNow);
  ASSERT_TRUE(table.has_value());
  EXPECT_EQ(table->at("columnDefinitions").size(), 2U);
}

}  // namespace
}  // namespace nodewright::apiserver
