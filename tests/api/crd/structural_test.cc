#include "api/crd/structural.h"

#include <gtest/gtest.h>

namespace nodewright::api::crd {
namespace {

// Rendered, so a failure prints readable lines.
std::vector<std::string> lines(const FieldErrors& errors) {
  std::vector<std::string> out;
  for (const FieldError& e : errors) {
    out.push_back(e.toString());
  }
  return out;
}

// A root object schema with `spec` set to the given node.
Json withSpec(const char* specJson) {
  Json root = Json::parse(R"({"type": "object", "properties": {"metadata": {"type": "object"}}})");
  root["properties"]["spec"] = Json::parse(specJson);
  return root;
}

TEST(StructuralSchemaTest, AcceptsTypedTreeWithIntOrStringAndPreservedFields) {
  Json schema = withSpec(R"({
    "type": "object",
    "required": ["name"],
    "properties": {
      "name": {"type": "string", "enum": ["a", "b"], "default": "a"},
      "count": {"type": "integer", "format": "int32", "minimum": 0},
      "memory": {"anyOf": [{"type": "integer"}, {"type": "string"}],
                 "x-kubernetes-int-or-string": true, "pattern": "^[0-9]+$"},
      "raw": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
      "anything": {"x-kubernetes-preserve-unknown-fields": true},
      "labels": {"type": "object", "additionalProperties": {"type": "string"}},
      "zones": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
      "ports": {"type": "array", "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["name", "protocol"],
                "items": {"type": "object", "required": ["name"], "properties": {
                  "name": {"type": "string"},
                  "protocol": {"type": "string", "default": "TCP"}}}}
    }})");
  EXPECT_EQ(lines(structuralErrors(schema)), std::vector<std::string>{});
}

struct StructuralCase {
  std::string name;
  Json schema;
  FieldErrors errors;
};

class StructuralErrorsTest : public ::testing::TestWithParam<StructuralCase> {};

TEST_P(StructuralErrorsTest, ReportsPathAndReason) {
  EXPECT_EQ(lines(structuralErrors(GetParam().schema)), lines(GetParam().errors));
}

INSTANTIATE_TEST_SUITE_P(
    Schemas, StructuralErrorsTest,
    ::testing::Values(
        StructuralCase{"RootWithoutType",
                       Json::parse(R"({"properties": {}})"),
                       {{"type", "Required value: must not be empty at the root"},
                        {"type", "Invalid value: \"\": must be object at the root"},
                        {"properties", "Forbidden: only allowed for type object"}}},
        StructuralCase{"FieldWithoutType",
                       withSpec(R"({"description": "untyped"})"),
                       {{"properties[spec].type",
                         "Required value: must not be empty for specified object fields"}}},
        StructuralCase{"ItemWithoutType",
                       withSpec(R"({"type": "array", "items": {"description": "x"}})"),
                       {{"properties[spec].items.type",
                         "Required value: must not be empty for specified array items"}}},
        StructuralCase{"MapValueWithoutType",
                       withSpec(R"({"type": "object", "additionalProperties": {}})"),
                       {{"properties[spec].additionalProperties.type",
                         "Required value: must not be empty for specified object fields"}}},
        StructuralCase{"UnknownType",
                       withSpec(R"({"type": "float"})"),
                       {{"properties[spec].type",
                         "Unsupported value: \"float\": supported values: \"array\", "
                         "\"boolean\", \"integer\", \"number\", \"object\", \"string\""}}},
        StructuralCase{
            "ArrayWithoutItems",
            withSpec(R"({"type": "array"})"),
            {{"properties[spec].items", "Required value: must be specified for type array"}}},
        StructuralCase{
            "ItemsAsList",
            withSpec(R"({"type": "array", "items": [{"type": "string"}]})"),
            {{"properties[spec].items", "Forbidden: must be a single schema, not a list"}}},
        StructuralCase{
            "PropertiesOnString",
            withSpec(R"({"type": "string", "properties": {"a": {"type": "string"}}})"),
            {{"properties[spec].properties", "Forbidden: only allowed for type object"}}},
        StructuralCase{"PropertiesAndAdditionalProperties",
                       withSpec(R"({"type": "object", "properties": {},
                                    "additionalProperties": {"type": "string"}})"),
                       {{"properties[spec].additionalProperties",
                         "Forbidden: additionalProperties and properties are mutually exclusive"}}},
        StructuralCase{"AdditionalPropertiesBoolean",
                       withSpec(R"({"type": "object", "additionalProperties": true})"),
                       {{"properties[spec].additionalProperties",
                         "Forbidden: must be a schema; use x-kubernetes-preserve-unknown-fields "
                         "for arbitrary fields"}}},
        StructuralCase{"PreserveUnknownFieldsFalse",
                       withSpec(R"({"type": "object",
                                    "x-kubernetes-preserve-unknown-fields": false})"),
                       {{"properties[spec].x-kubernetes-preserve-unknown-fields",
                         "Invalid value: false: must be true or undefined"}}},
        StructuralCase{"IntOrStringWithType",
                       withSpec(R"({"type": "string", "x-kubernetes-int-or-string": true})"),
                       {{"properties[spec].type",
                         "Invalid value: \"string\": must be empty if x-kubernetes-int-or-string "
                         "is true"}}},
        StructuralCase{
            "IntOrStringWithOtherAnyOf",
            withSpec(R"({"x-kubernetes-int-or-string": true,
                                    "anyOf": [{"type": "integer"}, {"type": "number"}]})"),
            {{"properties[spec].anyOf",
              "Invalid value: [{\"type\":\"integer\"},{\"type\":\"number\"}]: must be "
              "[{type: integer}, {type: string}] if x-kubernetes-int-or-string is "
              "true"},
             {"properties[spec].anyOf[1].type", "Forbidden: must be empty to be structural"}}},
        StructuralCase{
            "TypeInsideJunctor",
            withSpec(R"({"type": "string",
                                    "oneOf": [{"type": "string", "description": "x"}]})"),
            {{"properties[spec].oneOf[0].type", "Forbidden: must be empty to be structural"},
             {"properties[spec].oneOf[0].description",
              "Forbidden: must be empty to be structural"}}},
        StructuralCase{"JunctorPropertyNotSpecifiedOutside",
                       withSpec(R"({"type": "object", "properties": {"a": {"type": "string"}},
                                    "anyOf": [{"required": ["a"]},
                                              {"properties": {"b": {"minLength": 1}}}]})"),
                       {{"properties[spec].anyOf[1].properties[b]",
                         "Required value: must be specified outside the logical junctor as "
                         "well"}}},
        StructuralCase{"UnknownKeyword",
                       withSpec(R"({"type": "string", "$ref": "#/definitions/x"})"),
                       {{"properties[spec].$ref",
                         "Forbidden: not a schema keyword of apiextensions.k8s.io/v1"}}},
        StructuralCase{
            "EnumValueOfWrongType",
            withSpec(R"({"type": "integer", "enum": [1, "two"]})"),
            {{"properties[spec].enum[1]", "Invalid value: \"two\": must be of type integer"}}},
        StructuralCase{
            "DefaultOfWrongType",
            withSpec(R"({"type": "boolean", "default": "true"})"),
            {{"properties[spec].default", "Invalid value: \"true\": must be of type boolean"}}},
        StructuralCase{"RequiredNamesUndeclaredProperty",
                       withSpec(R"({"type": "object", "required": ["a"],
                                    "properties": {"b": {"type": "string"}}})"),
                       {{"properties[spec].required[0]",
                         "Invalid value: \"a\": must name a property declared in properties"}}},
        StructuralCase{"ListMapKeyNeitherRequiredNorDefaulted",
                       withSpec(R"({"type": "array", "x-kubernetes-list-type": "map",
                                    "x-kubernetes-list-map-keys": ["index"],
                                    "items": {"type": "object", "properties": {
                                      "index": {"type": "integer"}}}})"),
                       {{"properties[spec].items.properties[index]",
                         "Required value: this property is in x-kubernetes-list-map-keys, so it "
                         "must have a default or be a required property"}}},
        StructuralCase{"ListMapKeyNotAProperty",
                       withSpec(R"({"type": "array", "x-kubernetes-list-type": "map",
                                    "x-kubernetes-list-map-keys": ["name"],
                                    "items": {"type": "object", "properties": {}}})"),
                       {{"properties[spec].x-kubernetes-list-map-keys[0]",
                         "Invalid value: \"name\": entries must all be names of item "
                         "properties"}}},
        StructuralCase{"ListMapKeyNotScalar",
                       withSpec(R"({"type": "array", "x-kubernetes-list-type": "map",
                                    "x-kubernetes-list-map-keys": ["tags"],
                                    "items": {"type": "object", "required": ["tags"],
                                      "properties": {"tags": {"type": "array",
                                        "items": {"type": "string"}}}}})"),
                       {{"properties[spec].x-kubernetes-list-map-keys[0]",
                         "Invalid value: \"tags\": must be a scalar typed property"}}},
        StructuralCase{"ListMapWithoutKeys",
                       withSpec(R"({"type": "array", "x-kubernetes-list-type": "map",
                                    "items": {"type": "object"}})"),
                       {{"properties[spec].x-kubernetes-list-map-keys",
                         "Required value: must not be empty if x-kubernetes-list-type is map"}}},
        StructuralCase{"ListMapOfStrings",
                       withSpec(R"({"type": "array", "x-kubernetes-list-type": "map",
                                    "x-kubernetes-list-map-keys": ["a"],
                                    "items": {"type": "string"}})"),
                       {{"properties[spec].x-kubernetes-list-type",
                         "Invalid value: \"map\": must only be used with object items"},
                        {"properties[spec].x-kubernetes-list-map-keys[0]",
                         "Invalid value: \"a\": entries must all be names of item properties"}}},
        StructuralCase{"SetOfObjects",
                       withSpec(R"({"type": "array", "x-kubernetes-list-type": "set",
                                    "items": {"type": "object"}})"),
                       {{"properties[spec].x-kubernetes-list-type",
                         "Invalid value: \"set\": must only be used with scalar items"}}},
        StructuralCase{"ListMapKeysWithoutMapListType",
                       withSpec(R"({"type": "array", "x-kubernetes-list-map-keys": ["a"],
                                    "items": {"type": "string"}})"),
                       {{"properties[spec].x-kubernetes-list-map-keys",
                         "Forbidden: must only be used if x-kubernetes-list-type is map"}}},
        StructuralCase{"ListTypeOnObject",
                       withSpec(R"({"type": "object", "x-kubernetes-list-type": "set"})"),
                       {{"properties[spec].x-kubernetes-list-type",
                         "Forbidden: only allowed for type array"}}},
        StructuralCase{"MetadataWithDescription",
                       Json::parse(R"({"type": "object", "properties": {
                         "metadata": {"type": "object", "description": "Standard metadata."}}})"),
                       {{"properties[metadata]",
                         "Forbidden: must not specify anything other than name and "
                         "generateName, but metadata is implicitly specified"}}},
        StructuralCase{"MetadataWithLabels",
                       Json::parse(R"({"type": "object", "properties": {
                         "metadata": {"type": "object", "properties": {
                           "labels": {"type": "object"}}}}})"),
                       {{"properties[metadata]",
                         "Forbidden: must not specify anything other than name and "
                         "generateName, but metadata is implicitly specified"}}}),
    [](const auto& info) { return info.param.name; });

TEST(StructuralSchemaTest, MetadataMayRestrictNameAndGenerateName) {
  Json schema = Json::parse(R"({"type": "object", "properties": {"metadata": {"type": "object",
    "properties": {"name": {"type": "string", "maxLength": 63}}}}})");
  EXPECT_EQ(lines(structuralErrors(schema)), std::vector<std::string>{});
}

TEST(StructuralSchemaTest, NestedMetadataIsAnOrdinaryField) {
  Json schema = withSpec(R"({"type": "object", "properties": {
    "metadata": {"type": "object", "description": "Template metadata.",
                 "properties": {"labels": {"type": "object",
                   "additionalProperties": {"type": "string"}}}}}})");
  EXPECT_EQ(lines(structuralErrors(schema)), std::vector<std::string>{});
}

}  // namespace
}  // namespace nodewright::api::crd
