#include <gtest/gtest.h>

#include "api/codec.h"
#include "api/reflect/operations.h"

namespace nodewright::api {
namespace {

struct Port {
  std::optional<int32_t> card;
  std::optional<int32_t> device;
  std::string kind;
  bool keep = false;
};

struct Widget {
  std::string name;
  std::vector<Port> ports;
  std::vector<std::string> tags;
  std::map<std::string, core::Quantity> limits;
  std::optional<int32_t> weight;
  std::string mode;
  Json unknown;
};

struct Open {
  std::string name;
  Json unknown;
};

const reflect::StructSchema& describe(reflect::Tag<Port>) {
  static const reflect::StructSchema s = reflect::StructBuilder<Port>("Port", "A port.")
                                             .field<&Port::card>("card", "Card index.")
                                             .min(0)
                                             .defaultsTo(0)
                                             .field<&Port::device>("device", "Device index.")
                                             .min(0)
                                             .defaultsTo(0)
                                             .field<&Port::kind>("kind", "Kind of port.")
                                             .enums({"a", "b"})
                                             .field<&Port::keep>("keep", "Behavioral flag.")
                                             .behavioral()
                                             .forbid("address", "fixed addresses cannot be shared")
                                             .build();
  return s;
}

const reflect::StructSchema& describe(reflect::Tag<Widget>) {
  static const reflect::StructSchema s =
      reflect::StructBuilder<Widget>("Widget", "A test widget.")
          .field<&Widget::name>("name", "Name.")
          .required()
          .field<&Widget::ports>("ports", "Ports.")
          .mapList({"card", "device"})
          .maxItems(3)
          .field<&Widget::tags>("tags", "Tags.")
          .setList()
          .field<&Widget::limits>("limits", "Limits.")
          .behavioral()
          .field<&Widget::weight>("weight", "Weight.")
          .min(1)
          .max(100)
          .field<&Widget::mode>("mode", "Mode.")
          .defaultsTo("fast")
          .validate([](const Widget& w, const FieldPath& path, FieldErrors& errors) {
            if (w.mode == "slow" && w.weight) {
              errors.push_back({path.child("weight").str(), fielderr::forbidden("not with slow")});
            }
          })
          .build();
  return s;
}

const reflect::StructSchema& describe(reflect::Tag<Open>) {
  static const reflect::StructSchema s = reflect::StructBuilder<Open>("Open", "Keeps the rest.")
                                             .field<&Open::name>("name", "Name.")
                                             .keepUnknownIn<&Open::unknown>()
                                             .build();
  return s;
}

std::vector<std::string> render(const FieldErrors& errors) {
  std::vector<std::string> out;
  for (const FieldError& e : errors) {
    out.push_back(e.toString());
  }
  return out;
}

TEST(ReflectDecodeTest, RejectsUnknownFieldsWithTheirPath) {
  Widget w;
  auto errors =
      decodeJson(Json::parse(R"({"name":"x","ports":[{"card":0,"bogus":1}],"extra":2})"), w);
  EXPECT_EQ(render(errors),
            (std::vector<std::string>{"ports[0].bogus: field not declared in schema",
                                      "extra: field not declared in schema"}));
}

TEST(ReflectDecodeTest, ReportsEveryWrongTypeAtOnce) {
  Widget w;
  auto errors = decodeJson(
      Json::parse(R"({"name":5,"ports":{},"weight":"heavy","limits":{"cpu":"lots"}})"), w);
  EXPECT_EQ(
      render(errors),
      (std::vector<std::string>{
          "name: Invalid value: 5: must be of type string",
          "ports: Invalid value: {}: must be of type array",
          "weight: Invalid value: \"heavy\": must be of type integer",
          "limits[cpu]: Invalid value: \"lots\": quantities must match the regular expression "
          "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"}));
}

TEST(ReflectDecodeTest, RefusesForbiddenFieldsWithTheReason) {
  Widget w;
  auto errors = decodeJson(Json::parse(R"({"name":"x","ports":[{"address":"10.0.0.1"}]})"), w);
  EXPECT_EQ(
      render(errors),
      (std::vector<std::string>{"ports[0].address: Forbidden: fixed addresses cannot be shared"}));
}

TEST(ReflectDecodeTest, RejectsIntegersOutOfRange) {
  Widget w;
  auto errors = decodeJson(Json::parse(R"({"name":"x","weight":4294967296})"), w);
  EXPECT_EQ(
      render(errors),
      (std::vector<std::string>{"weight: Invalid value: 4294967296: out of range for int32"}));
}

TEST(ReflectDecodeTest, KeepsUnknownFieldsWhereTheSchemaSaysSo) {
  Open o;
  Json in = Json::parse(R"({"name":"x","spec":{"a":[1,2]},"z":true})");
  EXPECT_TRUE(decodeJson(in, o).empty());
  EXPECT_EQ(toJson(o), in);
}

TEST(ReflectValidateTest, ChecksRequiredEnumsBoundsItemsAndCrossFieldRules) {
  Widget w;
  ASSERT_TRUE(decodeJson(Json::parse(R"({"ports":[{"kind":"c"},{"card":-1},{},{"device":1}],
                                          "weight":0,"mode":"slow"})"),
                         w)
                  .empty());
  EXPECT_EQ(render(validateValue(w, "spec")),
            (std::vector<std::string>{
                "spec.name: Required value", "spec.ports: Too many: 4: must have at most 3 items",
                "spec.ports[2]: Duplicate value: {\"card\":0,\"device\":0}",
                "spec.ports[0].kind: Unsupported value: \"c\": supported values: \"a\", \"b\"",
                "spec.ports[1].card: Invalid value: -1: must be greater than or equal to 0",
                "spec.weight: Invalid value: 0: must be greater than or equal to 1",
                "spec.weight: Forbidden: not with slow"}));
}

TEST(ReflectDefaultsTest, FillsDeclaredDefaultsOnlyWhereEmpty) {
  Widget w;
  w.ports.resize(1);
  w.ports[0].device = 2;
  applyDefaults(w);
  EXPECT_EQ(w.mode, "fast");
  EXPECT_EQ(w.ports[0].card, 0);
  EXPECT_EQ(w.ports[0].device, 2);
}

TEST(ReflectEncodeTest, OmitsEmptyFieldsButKeepsPresentOptionals) {
  Widget w;
  w.name = "x";
  w.weight = 0;
  EXPECT_EQ(toJson(w).dump(), R"({"name":"x","weight":0})");
}

TEST(ReflectHashTest, SetListsAndListMapsHashIndependentOfOrder) {
  Widget a;
  a.tags = {"x", "y", "z"};
  a.ports = {Port{0, 1, "a", false}, Port{1, 0, "b", false}, Port{0, 10, "a", false}};
  Widget b = a;
  std::reverse(b.tags.begin(), b.tags.end());
  std::reverse(b.ports.begin(), b.ports.end());
  EXPECT_EQ(hashOf(a), hashOf(b));
  b.tags.push_back("w");
  EXPECT_NE(hashOf(a), hashOf(b));
}

TEST(ReflectHashTest, BehavioralFieldsDoNotChangeTheHash) {
  Widget a;
  a.name = "x";
  a.ports = {Port{0, 0, "a", false}};
  Widget b = a;
  b.ports[0].keep = true;
  b.limits["cpu"] = core::Quantity::fromInt(4);
  EXPECT_EQ(hashOf(a), hashOf(b));
  EXPECT_NE(hashOf(a, HashOptions{.staticOnly = false}),
            hashOf(b, HashOptions{.staticOnly = false}));
  b.ports[0].kind = "b";
  EXPECT_NE(hashOf(a), hashOf(b));
}

TEST(ReflectHashTest, AbsentAndEmptyFieldsAddNothing) {
  // A field added to the model later, left empty, must not change existing hashes.
  Widget a;
  a.name = "x";
  Widget b = a;
  b.tags = {};
  b.mode = "";
  EXPECT_EQ(hashOf(a), hashOf(b));
}

TEST(ReflectOpenApiTest, DescribesTypesConstraintsAndListSemantics) {
  Json schema = reflect::openApiSchema(reflect::opsFor<Widget>());
  EXPECT_EQ(schema["type"], "object");
  EXPECT_EQ(schema["required"], Json::array({"name"}));
  const Json& ports = schema["properties"]["ports"];
  EXPECT_EQ(ports["x-kubernetes-list-type"], "map");
  EXPECT_EQ(ports["x-kubernetes-list-map-keys"], Json::array({"card", "device"}));
  EXPECT_EQ(ports["maxItems"], 3);
  EXPECT_EQ(ports["items"]["properties"]["card"]["default"], 0);
  EXPECT_EQ(ports["items"]["properties"]["kind"]["enum"], Json::array({"a", "b"}));
  EXPECT_EQ(schema["properties"]["tags"]["x-kubernetes-list-type"], "set");
  EXPECT_EQ(schema["properties"]["limits"]["additionalProperties"]["x-kubernetes-int-or-string"],
            true);
  EXPECT_EQ(schema["properties"]["mode"]["default"], "fast");
  Json open = reflect::openApiSchema(reflect::opsFor<Open>());
  EXPECT_EQ(open["x-kubernetes-preserve-unknown-fields"], true);
}

TEST(ReflectLeavesTest, ListsEveryScalarWithItsDriftClass) {
  std::vector<std::string> paths;
  for (const reflect::Leaf& leaf : reflect::leaves(reflect::opsFor<Widget>())) {
    paths.push_back(leaf.path + (leaf.drift == reflect::Drift::Static ? "" : " (not static)"));
  }
  EXPECT_EQ(paths, (std::vector<std::string>{"name", "ports[].card", "ports[].device",
                                             "ports[].kind", "ports[].keep (not static)", "tags[]",
                                             "limits[*] (not static)", "weight", "mode"}));
}

}  // namespace
}  // namespace nodewright::api
