#include "api/conversion/nodepool_conversion.h"

#include <gtest/gtest.h>

#include <functional>

#include "api/conversion/annotations.h"
#include "api/conversion/convert.h"
#include "fixtures.h"

namespace nodewright::api::conversion {
namespace {

using testing::decode;
using testing::errorsOf;

seedera::Provisioner minimalProvisioner() {
  return decode<seedera::Provisioner>(R"(
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {name: p}
spec:
  providerRef: {name: default}
)");
}

seedera::Taint taint(std::string key, std::string effect) {
  seedera::Taint t;
  t.key = std::move(key);
  t.effect = std::move(effect);
  return t;
}

struct MappingCase {
  std::string name;
  std::function<void(seedera::Provisioner&)> edit;
  std::string pointer;  // JSON pointer into the encoded NodePool
  Json expected;
};

void PrintTo(const MappingCase& c, std::ostream* os) {
  *os << c.name;
}

class ProvisionerToNodePoolTest : public ::testing::TestWithParam<MappingCase> {};

TEST_P(ProvisionerToNodePoolTest, MapsTheFieldLikeKarpentersMigration) {
  seedera::Provisioner p = minimalProvisioner();
  GetParam().edit(p);
  Converted<karpenter::NodePool> pool = toNodePool(p);
  ASSERT_TRUE(pool) << errorsOf(pool).front();
  Json encoded = toJson(*pool);
  ASSERT_TRUE(encoded.contains(Json::json_pointer(GetParam().pointer))) << encoded.dump(2);
  EXPECT_EQ(encoded.at(Json::json_pointer(GetParam().pointer)), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    Fields, ProvisionerToNodePoolTest,
    ::testing::Values(
        MappingCase{"TypeMeta", [](auto&) {}, "/apiVersion", "karpenter.sh/v1"},
        MappingCase{"Kind", [](auto&) {}, "/kind", "NodePool"},
        MappingCase{"MetadataIsKept", [](auto& p) { p.metadata.labels["team"] = "a"; },
                    "/metadata", Json{{"name", "p"}, {"labels", {{"team", "a"}}}}},
        MappingCase{"LabelsGoToTemplateMetadata",
                    [](auto& p) { p.spec.labels = {{"team", "a"}}; },
                    "/spec/template/metadata/labels", Json{{"team", "a"}}},
        MappingCase{"AnnotationsGoToTemplateMetadata",
                    [](auto& p) { p.spec.annotations = {{"example.com/owner", "a"}}; },
                    "/spec/template/metadata/annotations", Json{{"example.com/owner", "a"}}},
        MappingCase{"TaintsGoToTemplateSpec",
                    [](auto& p) { p.spec.taints = {taint("dedicated", "NoSchedule")}; },
                    "/spec/template/spec/taints",
                    Json::array({{{"key", "dedicated"}, {"effect", "NoSchedule"}}})},
        MappingCase{"StartupTaintsGoToTemplateSpec",
                    [](auto& p) { p.spec.startupTaints = {taint("init", "NoExecute")}; },
                    "/spec/template/spec/startupTaints",
                    Json::array({{{"key", "init"}, {"effect", "NoExecute"}}})},
        MappingCase{"RequirementsGoToTemplateSpec",
                    [](auto& p) {
                      p.spec.requirements = {{"karpenter.sh/capacity-type", "In", {"spot"}}};
                    },
                    "/spec/template/spec/requirements",
                    Json::array({{{"key", "karpenter.sh/capacity-type"},
                                  {"operator", "In"},
                                  {"values", {"spot"}}}})},
        MappingCase{"TemplateFormRequirementsGoToTemplateSpec",
                    [](auto& p) {
                      p.spec.template_.emplace().requirements = {
                          {"kubernetes.io/arch", "In", {"arm64"}}};
                    },
                    "/spec/template/spec/requirements",
                    Json::array({{{"key", "kubernetes.io/arch"},
                                  {"operator", "In"},
                                  {"values", {"arm64"}}}})},
        MappingCase{"ProviderRefBecomesNodeClassRef", [](auto&) {},
                    "/spec/template/spec/nodeClassRef",
                    Json{{"group", "karpenter.k8s.aws"},
                         {"kind", "EC2NodeClass"},
                         {"name", "default"}}},
        MappingCase{"KubeletConfigurationBecomesKubelet",
                    [](auto& p) {
                      auto& k = p.spec.kubeletConfiguration.emplace();
                      k.maxPods = 20;
                      k.systemReserved["cpu"] = *core::Quantity::parse("100m");
                      k.evictionHard["memory.available"] = "5%";
                    },
                    "/spec/template/spec/kubelet",
                    Json{{"maxPods", 20},
                         {"systemReserved", {{"cpu", "100m"}}},
                         {"evictionHard", {{"memory.available", "5%"}}}}},
        MappingCase{"TtlSecondsUntilExpiredBecomesExpireAfter",
                    [](auto& p) { p.spec.ttlSecondsUntilExpired = 2592000; },
                    "/spec/template/spec/expireAfter", "720h0m0s"},
        MappingCase{"NoTtlSecondsUntilExpiredNeverExpires", [](auto&) {},
                    "/spec/template/spec/expireAfter", "Never"},
        MappingCase{"TtlSecondsAfterEmptyConsolidatesWhenEmpty",
                    [](auto& p) { p.spec.ttlSecondsAfterEmpty = 120; }, "/spec/disruption",
                    Json{{"consolidationPolicy", "WhenEmpty"}, {"consolidateAfter", "2m0s"}}},
        MappingCase{"ConsolidationEnabledConsolidatesUnderutilized",
                    [](auto& p) { p.spec.consolidation.enabled = true; }, "/spec/disruption",
                    Json{{"consolidationPolicy", "WhenEmptyOrUnderutilized"},
                         {"consolidateAfter", "0s"}}},
        MappingCase{"NeitherNeverConsolidates", [](auto&) {}, "/spec/disruption",
                    Json{{"consolidationPolicy", "WhenEmpty"}, {"consolidateAfter", "Never"}}},
        MappingCase{"LimitsResourcesBecomeLimits",
                    [](auto& p) {
                      p.spec.limits.resources["cpu"] = *core::Quantity::parse("1000");
                      p.spec.limits.resources["memory"] = *core::Quantity::parse("1000Gi");
                    },
                    "/spec/limits", Json{{"cpu", "1k"}, {"memory", "1000Gi"}}},
        MappingCase{"Weight", [](auto& p) { p.spec.weight = 50; }, "/spec/weight", 50},
        MappingCase{"StatusResources",
                    [](auto& p) { p.status.resources["cpu"] = *core::Quantity::parse("4"); },
                    "/status/resources", Json{{"cpu", "4"}}}),
    [](const auto& info) { return info.param.name; });

struct AnnotationCase {
  std::string name;
  std::function<void(seedera::Provisioner&)> edit;
  std::string key;
  std::optional<std::string> expected;  // nullopt: no such annotation
};

void PrintTo(const AnnotationCase& c, std::ostream* os) {
  *os << c.name;
}

class ProvisionerCompatibilityAnnotationTest : public ::testing::TestWithParam<AnnotationCase> {};

TEST_P(ProvisionerCompatibilityAnnotationTest, RecordsWhatNoV1FieldHolds) {
  seedera::Provisioner p = minimalProvisioner();
  GetParam().edit(p);
  Converted<karpenter::NodePool> pool = toNodePool(p);
  ASSERT_TRUE(pool) << errorsOf(pool).front();
  const auto& annotations = pool->metadata.annotations;
  auto it = annotations.find(GetParam().key);
  if (!GetParam().expected) {
    EXPECT_EQ(it, annotations.end()) << it->second;
    return;
  }
  ASSERT_NE(it, annotations.end());
  EXPECT_EQ(it->second, *GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    Annotations, ProvisionerCompatibilityAnnotationTest,
    ::testing::Values(
        AnnotationCase{"FlatFormHasNoTemplateFields", [](auto&) {}, kTemplateFieldsAnnotation,
                       std::nullopt},
        AnnotationCase{"EmptyTemplateIsRecorded", [](auto& p) { p.spec.template_.emplace(); },
                       kTemplateFieldsAnnotation, ""},
        AnnotationCase{"TemplateFieldsAreListed",
                       [](auto& p) {
                         auto& t = p.spec.template_.emplace();
                         t.labels = {{"a", "b"}};
                         t.providerRef = p.spec.providerRef;
                         p.spec.providerRef.reset();
                       },
                       kTemplateFieldsAnnotation, "labels,providerRef"},
        AnnotationCase{"BareProviderRefNeedsNoAnnotation", [](auto&) {}, kProviderRefAnnotation,
                       std::nullopt},
        AnnotationCase{"ProviderRefKindAndVersionAreRecorded",
                       [](auto& p) {
                         p.spec.providerRef->kind = "AWSNodeTemplate";
                         p.spec.providerRef->apiVersion = "karpenter.k8s.aws/v1alpha1";
                       },
                       kProviderRefAnnotation,
                       R"({"apiVersion":"karpenter.k8s.aws/v1alpha1","kind":"AWSNodeTemplate"})"},
        AnnotationCase{
            "LastScaleTimeIsRecorded",
            [](auto& p) { p.status.lastScaleTime = *core::Time::parse("2024-01-02T03:04:05Z"); },
            kLastScaleTimeAnnotation, "2024-01-02T03:04:05Z"},
        AnnotationCase{"ConditionSeveritiesAreRecorded",
                       [](auto& p) {
                         seedera::Condition c;
                         c.type = "Ready";
                         c.status = "False";
                         c.severity = "Warning";
                         p.status.conditions = {c};
                       },
                       kConditionSeveritiesAnnotation, R"({"Ready":"Warning"})"}),
    [](const auto& info) { return info.param.name; });

struct ErrorCase {
  std::string name;
  std::function<void(seedera::Provisioner&)> edit;
  std::vector<std::string> errors;
};

void PrintTo(const ErrorCase& c, std::ostream* os) {
  *os << c.name;
}

class ProvisionerConversionErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ProvisionerConversionErrorTest, NamesEveryFieldWithoutAV1Home) {
  seedera::Provisioner p = minimalProvisioner();
  GetParam().edit(p);
  EXPECT_EQ(errorsOf(toNodePool(p)), GetParam().errors);
}

INSTANTIATE_TEST_SUITE_P(
    Fields, ProvisionerConversionErrorTest,
    ::testing::Values(
        ErrorCase{"InlineProvider",
                  [](auto& p) {
                    p.spec.providerRef.reset();
                    p.spec.provider = Json{{"amiFamily", "Bottlerocket"}};
                  },
                  {"spec.provider: Forbidden: an inline provider cannot be expressed in "
                   "karpenter.sh/v1; move it to an AWSNodeTemplate (converted to an EC2NodeClass) "
                   "and reference that with providerRef"}},
        ErrorCase{
            "ContainerRuntime",
            [](auto& p) { p.spec.kubeletConfiguration.emplace().containerRuntime = "dockerd"; },
            {"spec.kubeletConfiguration.containerRuntime: Forbidden: has no karpenter.sh/v1 "
             "equivalent; Karpenter v1 nodes always run containerd"}},
        ErrorCase{"EveryErrorAtOnce",
                  [](auto& p) {
                    p.spec.provider = Json{{"amiFamily", "AL2"}};
                    p.spec.kubeletConfiguration.emplace().containerRuntime = "containerd";
                  },
                  {"spec.provider: Forbidden: an inline provider cannot be expressed in "
                   "karpenter.sh/v1; move it to an AWSNodeTemplate (converted to an EC2NodeClass) "
                   "and reference that with providerRef",
                   "spec.kubeletConfiguration.containerRuntime: Forbidden: has no karpenter.sh/v1 "
                   "equivalent; Karpenter v1 nodes always run containerd"}},
        ErrorCase{"BothFormsOfOneField",
                  [](auto& p) {
                    p.spec.labels = {{"a", "1"}};
                    p.spec.template_.emplace().labels = {{"a", "2"}};
                  },
                  {"spec.template.labels: Forbidden: spec.labels and spec.template.labels are "
                   "both set; set only one of them"}},
        ErrorCase{"ProviderRefToAnotherKind",
                  [](auto& p) { p.spec.providerRef->kind = "GCENodeTemplate"; },
                  {"spec.providerRef.kind: Unsupported value: \"GCENodeTemplate\": supported "
                   "values: \"AWSNodeTemplate\""}},
        ErrorCase{"TemplateProviderRefToAnotherVersion",
                  [](auto& p) {
                    p.spec.template_.emplace().providerRef = p.spec.providerRef;
                    p.spec.providerRef.reset();
                    p.spec.template_->providerRef->apiVersion = "karpenter.k8s.aws/v1beta1";
                  },
                  {"spec.template.providerRef.apiVersion: Unsupported value: "
                   "\"karpenter.k8s.aws/v1beta1\": supported values: "
                   "\"karpenter.k8s.aws/v1alpha1\""}},
        ErrorCase{"TtlSecondsAfterEmptyWithConsolidation",
                  [](auto& p) {
                    p.spec.ttlSecondsAfterEmpty = 30;
                    p.spec.consolidation.enabled = true;
                  },
                  {"spec.ttlSecondsAfterEmpty: Forbidden: may not be set together with "
                   "spec.consolidation.enabled"}},
        ErrorCase{"TtlBeyondADuration",
                  [](auto& p) { p.spec.ttlSecondsUntilExpired = 9'300'000'000; },
                  {"spec.ttlSecondsUntilExpired: Invalid value: 9300000000: must be at most "
                   "9223372036 to be expressed as a duration"}},
        ErrorCase{"MetadataAnnotationThatLooksLikeBookkeeping",
                  [](auto& p) {
                    p.metadata.annotations["compatibility.karpenter.sh/v1alpha5-other"] = "x";
                  },
                  {"metadata.annotations[compatibility.karpenter.sh/v1alpha5-other]: Invalid "
                   "value: \"x\": would not survive conversion to karpenter.sh/v1 NodePool"}}),
    [](const auto& info) { return info.param.name; });

struct RoundTripCase {
  std::string name;
  std::string_view yaml;
  std::function<void(seedera::Provisioner&)> edit;
};

void PrintTo(const RoundTripCase& c, std::ostream* os) {
  *os << c.name;
}

class ProvisionerRoundTripTest : public ::testing::TestWithParam<RoundTripCase> {};

TEST_P(ProvisionerRoundTripTest, RestoresTheProvisionerExactly) {
  seedera::Provisioner original = decode<seedera::Provisioner>(GetParam().yaml);
  GetParam().edit(original);
  Converted<karpenter::NodePool> pool = toNodePool(original);
  ASSERT_TRUE(pool) << errorsOf(pool).front();
  Converted<seedera::Provisioner> back = toProvisioner(*pool);
  ASSERT_TRUE(back) << errorsOf(back).front();
  EXPECT_EQ(toJson(*back).dump(2), toJson(original).dump(2));
}

TEST_P(ProvisionerRoundTripTest, RestoresTheProvisionerThroughEncodedJson) {
  seedera::Provisioner original = decode<seedera::Provisioner>(GetParam().yaml);
  GetParam().edit(original);
  auto v1 = convertToV1(toJson(original));
  ASSERT_TRUE(v1) << v1.error().message();
  auto back = convertFromV1(*v1, "karpenter.sh/v1alpha5");
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(back->dump(2), toJson(original).dump(2));
}

INSTANTIATE_TEST_SUITE_P(
    Objects, ProvisionerRoundTripTest,
    ::testing::Values(
        RoundTripCase{"FullyPopulatedFlatForm", testing::kFullProvisioner, [](auto&) {}},
        RoundTripCase{"FullyPopulatedTemplateForm", testing::kTemplateProvisioner, [](auto&) {}},
        RoundTripCase{"MixedForms", testing::kTemplateProvisioner,
                      [](auto& p) {
                        std::swap(p.spec.labels, p.spec.template_->labels);
                        std::swap(p.spec.providerRef, p.spec.template_->providerRef);
                      }},
        RoundTripCase{"EmptyTemplate", testing::kFullProvisioner,
                      [](auto& p) { p.spec.template_.emplace(); }},
        RoundTripCase{"ConsolidationEnabled", testing::kFullProvisioner,
                      [](auto& p) {
                        p.spec.ttlSecondsAfterEmpty.reset();
                        p.spec.consolidation.enabled = true;
                      }},
        RoundTripCase{"ZeroTtls", testing::kFullProvisioner,
                      [](auto& p) {
                        p.spec.ttlSecondsAfterEmpty = 0;
                        p.spec.ttlSecondsUntilExpired = 0;
                      }},
        RoundTripCase{"NothingOptional", testing::kTemplateProvisioner,
                      [](auto& p) {
                        p.spec = seedera::ProvisionerSpec{};
                        p.spec.providerRef.emplace().name = "default";
                      }}),
    [](const auto& info) { return info.param.name; });

karpenter::NodePool nativeNodePool() {
  return decode<karpenter::NodePool>(R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: native}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
)",
                                     structuralDecodeOptions());
}

struct ReverseCase {
  std::string name;
  std::function<void(karpenter::NodePool&)> edit;
  std::vector<std::string> errors;
};

void PrintTo(const ReverseCase& c, std::ostream* os) {
  *os << c.name;
}

class NodePoolToProvisionerErrorTest : public ::testing::TestWithParam<ReverseCase> {};

TEST_P(NodePoolToProvisionerErrorTest, NamesEveryV1OnlySetting) {
  karpenter::NodePool pool = nativeNodePool();
  GetParam().edit(pool);
  EXPECT_EQ(errorsOf(toProvisioner(pool)), GetParam().errors);
}

INSTANTIATE_TEST_SUITE_P(
    Fields, NodePoolToProvisionerErrorTest,
    ::testing::Values(
        ReverseCase{"Budgets",
                    [](auto& p) {
                      karpenter::Budget b;
                      b.nodes = "1";
                      p.spec.disruption.budgets = {b};
                    },
                    {"spec.disruption.budgets: Forbidden: has no karpenter.sh/v1alpha5 "
                     "equivalent"}},
        ReverseCase{"TerminationGracePeriod",
                    [](auto& p) {
                      p.spec.template_.spec.terminationGracePeriod =
                          core::Duration(std::chrono::hours(1));
                    },
                    {"spec.template.spec.terminationGracePeriod: Forbidden: has no "
                     "karpenter.sh/v1alpha5 equivalent"}},
        ReverseCase{"MinValues",
                    [](auto& p) {
                      p.spec.template_.spec.requirements = {
                          {"node.kubernetes.io/instance-type", "Exists", {}, 3}};
                    },
                    {"spec.template.spec.requirements[0].minValues: Forbidden: has no "
                     "karpenter.sh/v1alpha5 equivalent"}},
        ReverseCase{"GteOperator",
                    [](auto& p) {
                      p.spec.template_.spec.requirements = {
                          {"karpenter.k8s.aws/instance-cpu", "Gte", {"4"}, std::nullopt}};
                    },
                    {"spec.template.spec.requirements[0].operator: Unsupported value: \"Gte\": "
                     "supported values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\", "
                     "\"Lt\""}},
        ReverseCase{"DelayedUnderutilizedConsolidation",
                    [](auto& p) {
                      p.spec.disruption.consolidationPolicy = "WhenEmptyOrUnderutilized";
                      p.spec.disruption.consolidateAfter = core::Duration(std::chrono::minutes(5));
                    },
                    {"spec.disruption.consolidateAfter: Invalid value: \"5m0s\": v1alpha5 "
                     "consolidates underutilized nodes without delay; only 0s or Never can be "
                     "expressed"}},
        ReverseCase{"FractionalExpiry",
                    [](auto& p) {
                      p.spec.template_.spec.expireAfter =
                          core::Duration(std::chrono::milliseconds(1500));
                    },
                    {"spec.template.spec.expireAfter: Invalid value: \"1.5s\": must be a "
                     "non-negative whole number of seconds to be expressed in "
                     "karpenter.sh/v1alpha5"}},
        ReverseCase{"ForeignNodeClass",
                    [](auto& p) {
                      p.spec.template_.spec.nodeClassRef = {"example.com", "FooNodeClass", "x"};
                    },
                    {"spec.template.spec.nodeClassRef.group: Unsupported value: \"example.com\": "
                     "supported values: \"karpenter.k8s.aws\"",
                     "spec.template.spec.nodeClassRef.kind: Unsupported value: \"FooNodeClass\": "
                     "supported values: \"EC2NodeClass\""}},
        ReverseCase{"TamperedAnnotation",
                    [](auto& p) { p.metadata.annotations[kProviderRefAnnotation] = "{not json"; },
                    {"metadata.annotations[compatibility.karpenter.sh/v1alpha5-provider-ref]: "
                     "Invalid value: \"{not json\": must be JSON written by the conversion"}}),
    [](const auto& info) { return info.param.name; });

TEST(NodePoolToProvisionerTest, ReadsTheV1DefaultsAsTheirV1alpha5Meaning) {
  karpenter::NodePool pool = nativeNodePool();
  applyDefaults(pool);  // expireAfter 720h, WhenEmptyOrUnderutilized after 0s, a 10% budget
  Converted<seedera::Provisioner> p = toProvisioner(pool);
  ASSERT_TRUE(p) << errorsOf(p).front();
  EXPECT_EQ(toJson(p->spec), Json::parse(R"({"providerRef":{"name":"default"},
      "ttlSecondsUntilExpired":2592000,"consolidation":{"enabled":true}})"));
}

TEST(NodePoolToProvisionerTest, ReadsAMissingExpiryAsTheV1Default) {
  Converted<seedera::Provisioner> p = toProvisioner(nativeNodePool());
  ASSERT_TRUE(p) << errorsOf(p).front();
  EXPECT_EQ(p->spec.ttlSecondsUntilExpired, 2592000);
}

TEST(NodePoolToProvisionerTest, DropsEveryConversionAnnotation) {
  karpenter::NodePool pool = nativeNodePool();
  pool.metadata.annotations["compatibility.karpenter.sh/v1alpha5-unknown"] = "x";
  pool.metadata.annotations["keep"] = "me";
  Converted<seedera::Provisioner> p = toProvisioner(pool);
  ASSERT_TRUE(p) << errorsOf(p).front();
  EXPECT_EQ(p->metadata.annotations, (std::map<std::string, std::string>{{"keep", "me"}}));
}

TEST(NodePoolToProvisionerTest, PutsFieldsBackWhereTheTemplateAnnotationSays) {
  karpenter::NodePool pool = nativeNodePool();
  pool.spec.template_.metadata.labels = {{"team", "a"}};
  pool.spec.template_.metadata.annotations = {{"note", "b"}};
  pool.metadata.annotations[kTemplateFieldsAnnotation] = "labels,providerRef";
  Converted<seedera::Provisioner> p = toProvisioner(pool);
  ASSERT_TRUE(p) << errorsOf(p).front();
  Json spec = toJson(p->spec);
  EXPECT_EQ(spec["template"], Json::parse(R"({"labels":{"team":"a"},
      "providerRef":{"name":"default"}})"));
  EXPECT_EQ(spec["annotations"], Json::parse(R"({"note":"b"})"));
  EXPECT_FALSE(spec.contains("providerRef"));
}

}  // namespace
}  // namespace nodewright::api::conversion
