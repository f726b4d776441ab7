#include "apiserver/discovery/openapi.h"

#include <functional>

#include <gtest/gtest.h>

#include "apiserver/discovery/openapi_parts.h"
#include "apiserver/discovery/served.h"
#include "apiserver/discovery/test_resources.h"

namespace nodewright::apiserver::discovery {
namespace {

using testing::registryResources;
using testing::sampleResources;

api::Json document(const std::vector<ResourcePtr>& resources, std::string_view group,
                   std::string_view version) {
  auto doc = openApiV3Document(resources, group, version);
  EXPECT_TRUE(doc.has_value()) << group << "/" << version;
  return doc ? *doc : api::Json::object();
}

api::Json gvk(std::string_view group, std::string_view version, std::string_view kind) {
  return api::Json{{"group", group}, {"version", version}, {"kind", kind}};
}

// What kubectl's QueryParamVerifierV3 does: the first PATCH operation of the kind decides.
bool patchTakesFieldValidation(const api::Json& doc, const api::Json& kind) {
  for (const auto& [path, item] : doc["paths"].items()) {
    if (!item.contains("patch")) {
      continue;
    }
    const api::Json& op = item["patch"];
    if (op.value("x-kubernetes-group-version-kind", api::Json()) != kind) {
      continue;
    }
    for (const api::Json& p : op.value("parameters", api::Json::array())) {
      if (p["name"] == "fieldValidation") {
        return true;
      }
    }
    return false;
  }
  return false;
}

// Every "$ref" names a schema of the same document.
void expectRefsResolve(const api::Json& doc) {
  std::function<void(const api::Json&)> walk = [&](const api::Json& node) {
    if (node.is_object()) {
      if (auto ref = node.find("$ref"); ref != node.end()) {
        std::string name = ref->get<std::string>();
        ASSERT_TRUE(name.starts_with("#/components/schemas/")) << name;
        EXPECT_TRUE(doc["components"]["schemas"].contains(name.substr(21))) << name;
      }
      for (const auto& [key, value] : node.items()) {
        walk(value);
      }
    } else if (node.is_array()) {
      for (const api::Json& value : node) {
        walk(value);
      }
    }
  };
  walk(doc);
}

TEST(KindSchemaNameTest, FollowsUpstreamNaming) {
  using openapi::kindSchemaName;
  EXPECT_EQ(kindSchemaName("", "v1", "Pod", false), "io.k8s.api.core.v1.Pod");
  EXPECT_EQ(kindSchemaName("apps", "v1", "Deployment", false), "io.k8s.api.apps.v1.Deployment");
  EXPECT_EQ(kindSchemaName("coordination.k8s.io", "v1", "Lease", false),
            "io.k8s.api.coordination.v1.Lease");
  EXPECT_EQ(kindSchemaName("apiextensions.k8s.io", "v1", "CustomResourceDefinition", false),
            "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition");
  EXPECT_EQ(kindSchemaName("karpenter.sh", "v1", "NodePool", true), "sh.karpenter.v1.NodePool");
  EXPECT_EQ(kindSchemaName("cluster.x-k8s.io", "v1beta1", "Machine", true),
            "io.x-k8s.cluster.v1beta1.Machine");
}

TEST(OpenApiV3DocumentTest, DescribesKindsWithGroupVersionKindAndObjectMeta) {
  api::Json doc = document(sampleResources(), "karpenter.sh", "v1");
  EXPECT_EQ(doc["openapi"], "3.0.0");
  const api::Json& schemas = doc["components"]["schemas"];
  ASSERT_TRUE(schemas.contains("sh.karpenter.v1.NodePool"));
  const api::Json& pool = schemas["sh.karpenter.v1.NodePool"];
  EXPECT_EQ(
      pool["x-kubernetes-group-version-kind"],
      api::Json::array({{{"group", "karpenter.sh"}, {"kind", "NodePool"}, {"version", "v1"}}}));
  EXPECT_EQ(pool["properties"]["metadata"]["allOf"][0]["$ref"],
            "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  EXPECT_EQ(pool["properties"]["spec"]["description"], "Desired state.");
  EXPECT_TRUE(schemas.contains("sh.karpenter.v1.NodePoolList"));
  EXPECT_TRUE(
      schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]["properties"].contains("labels"));
  // Only the requested version's kinds.
  EXPECT_FALSE(schemas.contains("sh.karpenter.v1alpha5.Provisioner"));
  expectRefsResolve(doc);
}

TEST(OpenApiV3DocumentTest, HasThePathsKubectlExplainSearches) {
  api::Json doc = document(sampleResources(), "karpenter.sh", "v1");
  const api::Json& list = doc["paths"]["/apis/karpenter.sh/v1/nodepools"]["get"];
  EXPECT_EQ(list["x-kubernetes-action"], "list");
  EXPECT_EQ(list["x-kubernetes-group-version-kind"], gvk("karpenter.sh", "v1", "NodePool"));
  const api::Json& item = doc["paths"]["/apis/karpenter.sh/v1/nodepools/{name}"];
  for (const char* method : {"get", "put", "patch", "delete"}) {
    EXPECT_TRUE(item.contains(method)) << method;
  }
  EXPECT_EQ(item["parameters"][0]["name"], "name");
  EXPECT_TRUE(doc["paths"].contains("/apis/karpenter.sh/v1/nodepools/{name}/status"));

  api::Json core = document(sampleResources(), "", "v1");
  const api::Json& pods = core["paths"]["/api/v1/namespaces/{namespace}/pods"];
  EXPECT_EQ(pods["get"]["x-kubernetes-group-version-kind"], gvk("", "v1", "Pod"));
  EXPECT_EQ(pods["post"]["x-kubernetes-action"], "post");
  EXPECT_EQ(pods["delete"]["x-kubernetes-action"], "deletecollection");
  EXPECT_EQ(core["paths"]["/api/v1/pods"]["get"]["operationId"], "listCoreV1PodForAllNamespaces");
  EXPECT_FALSE(core["paths"].contains("/api/v1/namespaces/{namespace}/namespaces"));
  EXPECT_TRUE(core["paths"].contains("/api/v1/namespaces/{name}"));
}

TEST(OpenApiV3DocumentTest, DescribesSubresourceKinds) {
  api::Json apps = document(sampleResources(), "apps", "v1");
  const api::Json& scale =
      apps["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"];
  EXPECT_EQ(scale["patch"]["x-kubernetes-group-version-kind"], gvk("autoscaling", "v1", "Scale"));
  EXPECT_EQ(scale["patch"]["operationId"], "patchAppsV1NamespacedDeploymentScale");
  EXPECT_FALSE(scale.contains("post"));
  EXPECT_TRUE(apps["components"]["schemas"].contains("io.k8s.api.autoscaling.v1.Scale"));
  expectRefsResolve(apps);

  api::Json core = document(sampleResources(), "", "v1");
  const api::Json& eviction = core["paths"]["/api/v1/namespaces/{namespace}/pods/{name}/eviction"];
  EXPECT_EQ(eviction["post"]["x-kubernetes-group-version-kind"], gvk("policy", "v1", "Eviction"));
  EXPECT_FALSE(eviction.contains("get"));
  EXPECT_TRUE(core["components"]["schemas"].contains("io.k8s.api.policy.v1.Eviction"));
  EXPECT_TRUE(core["components"]["schemas"].contains("io.k8s.api.core.v1.Binding"));
  expectRefsResolve(core);
}

TEST(OpenApiV3DocumentTest, PatchTakesFieldValidationForEveryKind) {
  std::vector<ResourcePtr> resources = registryResources();
  for (const ResourcePtr& r : sampleResources()) {
    resources.push_back(r);
  }
  for (const ServedGroup& g : servedGroups(resources)) {
    for (const std::string& v : g.versions) {
      api::Json doc = document(resources, g.name, v);
      for (const ResourcePtr& r : resourcesOf(resources, g.name, v)) {
        EXPECT_TRUE(patchTakesFieldValidation(doc, gvk(r->group, r->version, r->kind)))
            << r->qualifiedKind();
      }
    }
  }
}

TEST(OpenApiV3DocumentTest, NeverOffersStrategicMergePatch) {
  api::Json doc = document(sampleResources(), "apps", "v1");
  for (const auto& [path, item] : doc["paths"].items()) {
    if (!item.contains("patch")) {
      continue;
    }
    const api::Json& content = item["patch"]["requestBody"]["content"];
    EXPECT_FALSE(content.contains("application/strategic-merge-patch+json")) << path;
    EXPECT_TRUE(content.contains("application/apply-patch+yaml")) << path;
    EXPECT_TRUE(content.contains("application/merge-patch+json")) << path;
  }
}

TEST(OpenApiV3DocumentTest, EveryRegistryKindHasAResolvableSchema) {
  std::vector<ResourcePtr> resources = registryResources();
  for (const ResourcePtr& r : resources) {
    api::Json doc = document(resources, r->group, r->version);
    const api::Json& schema = doc["components"]["schemas"][openapi::kindSchemaName(*r)];
    EXPECT_EQ(schema["x-kubernetes-group-version-kind"][0]["kind"], r->kind);
    EXPECT_FALSE(schema.value("description", "").empty()) << r->kind;
    // apiVersion, kind, metadata and the kind's own fields.
    EXPECT_GT(schema["properties"].size(), 3u) << r->kind;
    expectRefsResolve(doc);
  }
}

TEST(OpenApiV3DocumentTest, IsNotFoundForUnservedGroupVersions) {
  EXPECT_TRUE(openApiV3Document(sampleResources(), "apps", "v2").error().is(core::Code::NotFound));
  EXPECT_TRUE(openApiV3Document({}, "", "v1").error().is(core::Code::NotFound));
}

TEST(OpenApiV3DocumentAtTest, ResolvesIndexKeys) {
  auto core = openApiV3DocumentAt(sampleResources(), "api/v1");
  ASSERT_TRUE(core.has_value());
  EXPECT_TRUE((*core)["components"]["schemas"].contains("io.k8s.api.core.v1.Pod"));
  auto pools = openApiV3DocumentAt(sampleResources(), "apis/karpenter.sh/v1alpha5");
  ASSERT_TRUE(pools.has_value());
  EXPECT_TRUE((*pools)["components"]["schemas"].contains("sh.karpenter.v1alpha5.Provisioner"));
  for (const char* bad : {"", "api", "api/", "apis/apps", "apis//v1", "apis/apps/v1/x",
                          "api/v1/pods", "version", "apis/batch/v1"}) {
    EXPECT_TRUE(openApiV3DocumentAt(sampleResources(), bad).error().is(core::Code::NotFound))
        << bad;
  }
}

TEST(OpenApiV3IndexTest, PointsAtEveryGroupVersionWithItsHash) {
  std::vector<ResourcePtr> resources = sampleResources();
  api::Json index = openApiV3Index(resources);
  size_t count = 0;
  for (const ServedGroup& g : servedGroups(resources)) {
    for (const std::string& v : g.versions) {
      ++count;
      std::string key = openApiV3Path(g.name, v);
      ASSERT_TRUE(index["paths"].contains(key)) << key;
      EXPECT_EQ(index["paths"][key]["serverRelativeURL"],
                "/openapi/v3/" + key + "?hash=" + documentHash(document(resources, g.name, v)));
    }
  }
  EXPECT_EQ(index["paths"].size(), count);
  EXPECT_TRUE(index["paths"].contains("api/v1"));
  EXPECT_TRUE(index["paths"].contains("apis/karpenter.sh/v1"));
}

TEST(DocumentHashTest, IsStableAndFollowsContent) {
  api::Json a = document(sampleResources(), "apps", "v1");
  api::Json b = document(sampleResources(), "apps", "v1");
  EXPECT_EQ(documentHash(a), documentHash(b));
  EXPECT_EQ(documentHash(a).size(), 32u);
  EXPECT_EQ(documentHash(a).find_first_not_of("0123456789ABCDEF"), std::string::npos);
  b["info"]["version"] = "other";
  EXPECT_NE(documentHash(a), documentHash(b));
  EXPECT_EQ(documentHash(api::Json::object()), documentHash(api::Json::object()));
}

TEST(OpenApiV2Test, ProtobufIsAnEmptySwaggerDocument) {
  std::string expected;
  expected += std::string("\x0a\x03", 2) + "2.0";
  expected += std::string("\x12\x20", 2) + std::string("\x0a\x0a", 2) + "Kubernetes" +
              std::string("\x12\x12", 2) + "v1.32.0-nodewright";
  expected += std::string("\x42\x00\x4a\x00", 4);
  EXPECT_EQ(openApiV2Protobuf(), expected);
  api::Json json = openApiV2Document();
  EXPECT_EQ(json["swagger"], "2.0");
  EXPECT_TRUE(json["definitions"].empty());
}

}  // namespace
}  // namespace nodewright::apiserver::discovery
