#include "api/crd/generate.h"

#include <set>

#include <gtest/gtest.h>

#include "api/crd/structural.h"
#include "api/crd/test_kinds.h"
#include "api/yaml.h"

namespace nodewright::api::crd {
namespace {

const Json* findCrd(const std::vector<Json>& crds, const std::string& name) {
  for (const Json& crd : crds) {
    if (crd["metadata"]["name"] == name) {
      return &crd;
    }
  }
  return nullptr;
}

class CrdGeneratorTest : public ::testing::Test {
 protected:
  std::vector<Json> crds_ = generateCrds(testkinds::testRegistry());
};

TEST_F(CrdGeneratorTest, GeneratesOneCrdPerCustomGroupAndKind) {
  ASSERT_EQ(crds_.size(), 2u);
  EXPECT_EQ(crds_[0]["metadata"]["name"], "gadgets.test.nodewright.io");
  EXPECT_EQ(crds_[1]["metadata"]["name"], "widgets.test.nodewright.io");
}

TEST_F(CrdGeneratorTest, RendersSmallCrdExactly) {
  const Json* gadget = findCrd(crds_, "gadgets.test.nodewright.io");
  ASSERT_NE(gadget, nullptr);
  EXPECT_EQ(toYaml(*gadget), R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.test.nodewright.io
spec:
  group: test.nodewright.io
  names:
    kind: Gadget
    listKind: GadgetList
    plural: gadgets
    singular: gadget
  scope: Cluster
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          description: A gadget for tests.
          type: object
          properties:
            apiVersion:
              description: APIVersion defines the versioned schema of this representation of an object.
              type: string
            kind:
              description: Kind is a string value representing the REST resource this object represents.
              type: string
            metadata:
              type: object
            spec:
              description: Settings.
              type: object
              additionalProperties:
                type: string
)");
}

TEST_F(CrdGeneratorTest, ListsEveryVersionOldestFirstAndStoresTheNewest) {
  const Json* widget = findCrd(crds_, "widgets.test.nodewright.io");
  ASSERT_NE(widget, nullptr);
  const Json& versions = (*widget)["spec"]["versions"];
  ASSERT_EQ(versions.size(), 2u);
  EXPECT_EQ(versions[0]["name"], "v1alpha1");
  EXPECT_EQ(versions[0]["storage"], false);
  EXPECT_EQ(versions[0]["served"], true);
  EXPECT_FALSE(versions[0].contains("subresources"));
  EXPECT_EQ(versions[1]["name"], "v1");
  EXPECT_EQ(versions[1]["storage"], true);
  EXPECT_EQ(versions[1]["served"], true);
  EXPECT_EQ(versions[1]["subresources"], (Json{{"status", Json::object()}}));
}

TEST_F(CrdGeneratorTest, CarriesNamesScopeAndPrinterColumns) {
  const Json& spec = (*findCrd(crds_, "widgets.test.nodewright.io"))["spec"];
  EXPECT_EQ(spec["group"], "test.nodewright.io");
  EXPECT_EQ(spec["scope"], "Namespaced");
  EXPECT_EQ(spec["names"], (Json{{"kind", "Widget"},
                                 {"listKind", "WidgetList"},
                                 {"plural", "widgets"},
                                 {"singular", "widget"},
                                 {"shortNames", {"wd"}},
                                 {"categories", {"nodewright"}}}));
  EXPECT_EQ(spec["versions"][1]["additionalPrinterColumns"],
            Json::parse(R"([{"name":"Size","type":"string","jsonPath":".spec.size"},
                            {"name":"Replicas","type":"integer","jsonPath":".spec.replicas",
                             "priority":1,"description":"Number of copies."}])"));
  EXPECT_FALSE(spec["versions"][0].contains("additionalPrinterColumns"));
}

TEST_F(CrdGeneratorTest, SchemaHasKindDocAndOpaqueMetadata) {
  const Json& schema = (*findCrd(
      crds_, "widgets.test.nodewright.io"))["spec"]["versions"][1]["schema"]["openAPIV3Schema"];
  EXPECT_EQ(schema["description"], "A widget for tests.");
  EXPECT_EQ(schema["type"], "object");
  EXPECT_EQ(schema["properties"]["metadata"], (Json{{"type", "object"}}));
  EXPECT_EQ(schema["required"], Json::array({"spec"}));
  const Json& ports = schema["properties"]["spec"]["properties"]["ports"];
  EXPECT_EQ(ports["x-kubernetes-list-type"], "map");
  EXPECT_EQ(ports["x-kubernetes-list-map-keys"], Json::array({"name", "protocol"}));
  EXPECT_EQ(ports["items"]["properties"]["protocol"]["default"], "TCP");
  EXPECT_EQ(ports["items"]["properties"]["protocol"]["enum"], Json::array({"TCP", "UDP"}));
}

TEST_F(CrdGeneratorTest, EveryGeneratedSchemaIsStructural) {
  for (const Json& crd : crds_) {
    for (const Json& v : crd["spec"]["versions"]) {
      FieldErrors errors = structuralErrors(v["schema"]["openAPIV3Schema"]);
      EXPECT_TRUE(errors.empty()) << crd["metadata"]["name"] << " " << v["name"] << ": "
                                  << errors.front().toString();
    }
  }
}

TEST_F(CrdGeneratorTest, NamesFilesLikeControllerGen) {
  EXPECT_EQ(crdFileName(crds_[0]), "test.nodewright.io_gadgets.yaml");
  std::map<std::string, std::string> files = crdFiles(testkinds::testRegistry());
  std::vector<std::string> names;
  for (const auto& [name, text] : files) {
    names.push_back(name);
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"kustomization.yaml", "test.nodewright.io_gadgets.yaml",
                                      "test.nodewright.io_widgets.yaml"}));
  auto docs = parseDocuments(files["kustomization.yaml"]);
  ASSERT_TRUE(docs) << docs.error().message();
  EXPECT_EQ(docs->at(0).value["resources"],
            Json::array({"test.nodewright.io_gadgets.yaml", "test.nodewright.io_widgets.yaml"}));
}

TEST_F(CrdGeneratorTest, StreamHoldsEveryCrdAndReadsBack) {
  std::string stream = crdStream(testkinds::testRegistry());
  auto docs = parseDocuments(stream);
  ASSERT_TRUE(docs) << docs.error().message();
  ASSERT_EQ(docs->size(), crds_.size());
  for (size_t i = 0; i < crds_.size(); ++i) {
    EXPECT_EQ(docs->at(i).value, crds_[i]) << i;
  }
}

TEST_F(CrdGeneratorTest, IsDeterministic) {
  EXPECT_EQ(crdStream(testkinds::testRegistry()), crdStream(testkinds::testRegistry()));
}

struct VersionOrderCase {
  std::string name;
  std::string higher;
  std::string lower;
};

class VersionPriorityTest : public ::testing::TestWithParam<VersionOrderCase> {};

TEST_P(VersionPriorityTest, OrdersLikeTheApiServer) {
  EXPECT_TRUE(higherVersionPriority(GetParam().higher, GetParam().lower));
  EXPECT_FALSE(higherVersionPriority(GetParam().lower, GetParam().higher));
}

INSTANTIATE_TEST_SUITE_P(
    Versions, VersionPriorityTest,
    ::testing::Values(VersionOrderCase{"GaOverBeta", "v1", "v1beta1"},
                      VersionOrderCase{"BetaOverAlpha", "v1beta1", "v1alpha5"},
                      VersionOrderCase{"HigherGa", "v2", "v1"},
                      VersionOrderCase{"HigherMajorBeta", "v2beta1", "v1beta2"},
                      VersionOrderCase{"HigherMinorBeta", "v1beta2", "v1beta1"},
                      VersionOrderCase{"NumericNotLexical", "v1alpha10", "v1alpha9"},
                      VersionOrderCase{"GaOverAlphaOfHigherMajor", "v1", "v2alpha1"},
                      VersionOrderCase{"KubeVersionOverOther", "v1alpha1", "foo"},
                      VersionOrderCase{"OthersAlphabetically", "bar", "foo"}),
    [](const auto& info) { return info.param.name; });

// The real model: whatever kinds the API groups register must yield valid CRDs.
class BuiltinCrdTest : public ::testing::Test {
 protected:
  const Registry& registry_ = builtinRegistry();
  std::vector<Json> crds_ = generateCrds(registry_);
};

TEST_F(BuiltinCrdTest, EverySchemaIsStructural) {
  for (const Json& crd : crds_) {
    for (const Json& v : crd["spec"]["versions"]) {
      for (const FieldError& e : structuralErrors(v["schema"]["openAPIV3Schema"])) {
        ADD_FAILURE() << crd["metadata"]["name"].get<std::string>() << " "
                      << v["name"].get<std::string>() << ": " << e.toString();
      }
    }
  }
}

TEST_F(BuiltinCrdTest, EveryCustomKindVersionIsServedOnce) {
  std::set<std::string> served;
  for (const Json& crd : crds_) {
    int storage = 0;
    for (const Json& v : crd["spec"]["versions"]) {
      EXPECT_EQ(v["served"], true);
      storage += v["storage"].get<bool>() ? 1 : 0;
      std::string key = crd["spec"]["group"].get<std::string>() + "/" +
                        v["name"].get<std::string>() + "/" +
                        crd["spec"]["names"]["kind"].get<std::string>();
      EXPECT_TRUE(served.insert(key).second) << key;
    }
    EXPECT_EQ(storage, 1) << crd["metadata"]["name"];
  }
  std::set<std::string> custom;
  for (const KindInfo& k : registry_.kinds()) {
    if (k.custom) {
      custom.insert(k.apiVersion() + "/" + k.kind);
    }
  }
  EXPECT_EQ(served, custom);
}

TEST_F(BuiltinCrdTest, VersionsOfOneKindAgreeOnNamesAndScope) {
  for (const KindInfo& a : registry_.kinds()) {
    for (const KindInfo& b : registry_.kinds()) {
      if (a.custom && b.custom && a.group == b.group && a.kind == b.kind) {
        EXPECT_EQ(a.plural, b.plural) << a.apiVersion() << " " << a.kind;
        EXPECT_EQ(a.namespaced, b.namespaced) << a.apiVersion() << " " << a.kind;
      }
    }
  }
}

TEST_F(BuiltinCrdTest, EveryCustomKindIsDocumented) {
  for (const KindInfo& k : registry_.kinds()) {
    if (k.custom) {
      EXPECT_FALSE(k.doc.empty()) << k.apiVersion() << " " << k.kind << " has no description";
    }
  }
}

}  // namespace
}  // namespace nodewright::api::crd
