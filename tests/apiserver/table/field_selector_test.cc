#include "apiserver/table/field_selector.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace nodewright::apiserver {
namespace {

using api::Json;

FieldSelector parsed(std::string_view text) {
  auto selector = FieldSelector::parse(text);
  EXPECT_TRUE(selector.has_value()) << text << ": " << selector.error().message();
  return selector.value_or(FieldSelector());
}

std::string parseError(std::string_view text) {
  auto selector = FieldSelector::parse(text);
  EXPECT_FALSE(selector.has_value()) << text;
  if (selector.has_value()) {
    return "";
  }
  EXPECT_TRUE(selector.error().is(core::Code::Invalid));
  return selector.error().message();
}

Resource builtin(std::string group, std::string kind, bool namespaced = true) {
  Resource r;
  r.group = std::move(group);
  r.version = "v1";
  r.kind = std::move(kind);
  r.namespaced = namespaced;
  return r;
}

Resource custom(bool namespaced) {
  Resource r = builtin("karpenter.sh", "NodePool", namespaced);
  r.custom = true;
  return r;
}

std::string checkError(std::string_view text, const Resource& resource) {
  auto checked = parsed(text).forResource(resource);
  EXPECT_FALSE(checked.has_value()) << text;
  return checked.has_value() ? "" : checked.error().message();
}

TEST(FieldSelectorParseTest, ReadsAllThreeOperators) {
  const FieldSelector s = parsed("spec.nodeName=n1,status.phase!=Running,metadata.name==web");
  EXPECT_EQ(s.requirements(), (std::vector<FieldRequirement>{
                                  {"metadata.name", true, "web"},
                                  {"spec.nodeName", true, "n1"},
                                  {"status.phase", false, "Running"},
                              }));
  EXPECT_EQ(s.toString(), "metadata.name=web,spec.nodeName=n1,status.phase!=Running");
}

TEST(FieldSelectorParseTest, EmptyTextAndEmptyTermsSelectEverything) {
  EXPECT_TRUE(parsed("").empty());
  EXPECT_TRUE(parsed(",,").empty());
  EXPECT_EQ(parsed("a=b,").requirements().size(), 1U);
  EXPECT_TRUE(parsed("").matches(Json::object()));
}

TEST(FieldSelectorParseTest, UnescapesValues) {
  const FieldSelector s = parsed(R"(a=x\,y\=z\\w,b=)");
  ASSERT_EQ(s.requirements().size(), 2U);
  EXPECT_EQ(s.requirements()[0].value, R"(x,y=z\w)");
  EXPECT_EQ(s.requirements()[1].value, "");
  EXPECT_EQ(s.toString(), R"(a=x\,y\=z\\w,b=)");
}

TEST(FieldSelectorParseTest, SplitsAtTheFirstOperator) {
  // "==" is tried before "=", so the value does not keep a leading "=".
  EXPECT_EQ(parsed("a==b").requirements(), (std::vector<FieldRequirement>{{"a", true, "b"}}));
  EXPECT_EQ(parsed("a!b=c").requirements(), (std::vector<FieldRequirement>{{"a!b", true, "c"}}));
  EXPECT_EQ(parseError("a!==b"), "invalid field selector: unescaped character in value: 61");
  EXPECT_EQ(parseError("a=b,c"), "invalid selector: 'a=b,c'; can't understand 'c'");
}

TEST(FieldSelectorParseTest, ReportsApimachineryErrors) {
  EXPECT_EQ(parseError("a=b,nonsense"),
            "invalid selector: 'a=b,nonsense'; can't understand "
            "'nonsense'");
  EXPECT_EQ(parseError("a in (b)"), "invalid selector: 'a in (b)'; can't understand 'a in (b)'");
  EXPECT_EQ(parseError(R"(a=b\c)"), R"(invalid field selector: invalid escape sequence: \c)");
  EXPECT_EQ(parseError("a=b\\"), R"(invalid field selector: invalid escape sequence: \)");
  EXPECT_EQ(parseError("a=\\\xc3\xa9"),
            "invalid field selector: invalid escape sequence: \\\xc3\xa9");
}

TEST(FieldSelectorCheckTest, AcceptsEachKindsLabels) {
  EXPECT_TRUE(parsed("spec.nodeName=n,status.podIP=1.2.3.4,spec.hostNetwork=true,"
                     "metadata.namespace=dev,status.nominatedNodeName=x")
                  .forResource(builtin("", "Pod"))
                  .has_value());
  EXPECT_TRUE(parsed("spec.unschedulable=true,metadata.name=n").forResource(builtin("", "Node")));
  EXPECT_TRUE(parsed("involvedObject.uid=u,reason=R,source=kubelet,type=Warning")
                  .forResource(builtin("", "Event")));
  EXPECT_TRUE(parsed("type=Opaque").forResource(builtin("", "Secret")));
  EXPECT_TRUE(parsed("status.phase=Active").forResource(builtin("", "Namespace", false)));
  EXPECT_TRUE(parsed("metadata.namespace=dev").forResource(builtin("apps", "Deployment")));
}

TEST(FieldSelectorCheckTest, RenamesThePodsLegacyHostLabel) {
  auto checked = parsed("spec.host=n1").forResource(builtin("", "Pod"));
  ASSERT_TRUE(checked.has_value());
  EXPECT_EQ(checked->toString(), "spec.nodeName=n1");
}

TEST(FieldSelectorCheckTest, KindsWithTheirOwnListSayFieldLabelNotSupported) {
  EXPECT_EQ(checkError("spec.containers=x", builtin("", "Pod")),
            "field label not supported: spec.containers");
  EXPECT_EQ(checkError("metadata.namespace=x", builtin("", "Node", false)),
            "field label not supported: metadata.namespace");
  EXPECT_EQ(checkError("spec.host=n", builtin("", "Node", false)),
            "field label not supported: spec.host");
}

TEST(FieldSelectorCheckTest, OtherBuiltinKindsOnlyKnowNameAndNamespace) {
  EXPECT_EQ(checkError("status.replicas=0", builtin("apps", "ReplicaSet")),
            R"("status.replicas" is not a known field selector: only "metadata.name", )"
            R"("metadata.namespace")");
  EXPECT_EQ(checkError("spec.holderIdentity=x", builtin("coordination.k8s.io", "Lease")),
            R"("spec.holderIdentity" is not a known field selector: only "metadata.name", )"
            R"("metadata.namespace")");
}

TEST(FieldSelectorCheckTest, CustomResourcesAcceptNameNamespaceAndSelectableFields) {
  EXPECT_TRUE(parsed("metadata.name=a,metadata.namespace=b").forResource(custom(true)));
  EXPECT_EQ(checkError("metadata.namespace=b", custom(false)),
            "field label not supported: metadata.namespace");
  EXPECT_EQ(checkError("spec.weight=1", custom(true)), "field label not supported: spec.weight");
  Resource selectable = custom(false);
  selectable.fieldSelectors = {"spec.weight"};
  EXPECT_TRUE(parsed("spec.weight=1").forResource(selectable));
}

TEST(FieldSelectorCheckTest, ResourceFieldSelectorsExtendBuiltinLists) {
  Resource pod = builtin("", "Pod");
  pod.fieldSelectors = {"spec.priorityClassName"};
  EXPECT_TRUE(parsed("spec.priorityClassName=high").forResource(pod));
}

const Json kPod = Json::parse(R"({
  "metadata": {"name": "web", "namespace": "dev"},
  "spec": {"nodeName": "n1", "restartPolicy": "Always", "priority": 10},
  "status": {"phase": "Running", "podIP": "10.0.0.9",
             "podIPs": [{"ip": "10.0.0.5"}, {"ip": "fd00::5"}]}
})");

TEST(FieldSelectorMatchTest, ComparesDottedPaths) {
  EXPECT_TRUE(parsed("spec.nodeName=n1,metadata.namespace=dev").matches(kPod));
  EXPECT_FALSE(parsed("spec.nodeName=n2").matches(kPod));
  EXPECT_TRUE(parsed("status.phase!=Pending").matches(kPod));
  EXPECT_FALSE(parsed("status.phase!=Running").matches(kPod));
  EXPECT_TRUE(parsed("spec.priority=10").matches(kPod));
  EXPECT_TRUE(parsed("status.podIP=10.0.0.5").matches(kPod));
}

TEST(FieldSelectorMatchTest, AbsentFieldsReadAsGoZeroValues) {
  EXPECT_TRUE(parsed("spec.schedulerName=").matches(kPod));
  EXPECT_TRUE(parsed("spec.hostNetwork=false").matches(kPod));
  EXPECT_FALSE(parsed("spec.hostNetwork=true").matches(kPod));
  EXPECT_TRUE(parsed("spec.unschedulable=false").matches(Json::parse(R"({"spec": {}})")));
  EXPECT_TRUE(parsed("spec.unschedulable=true")
                  .matches(Json::parse(R"({"spec": {"unschedulable": true}})")));
  EXPECT_TRUE(parsed("status.replicas=0").matches(Json::object()));
  EXPECT_TRUE(parsed("metadata.namespace=").matches(Json::parse(R"({"metadata": {}})")));
}

TEST(FieldSelectorMatchTest, EventSourceFallsBackToReportingComponent) {
  const Json legacy = Json::parse(R"({"source": {"component": "kubelet"},
                                      "reportingComponent": "other"})");
  const Json modern = Json::parse(R"({"source": {}, "reportingComponent": "karpenter"})");
  EXPECT_TRUE(parsed("source=kubelet").matches(legacy));
  EXPECT_TRUE(parsed("source=karpenter").matches(modern));
  EXPECT_TRUE(parsed("reportingComponent=karpenter").matches(modern));
}

TEST(FieldSelectorMatchTest, PodIPFallsBackToTheSingularField) {
  EXPECT_TRUE(
      parsed("status.podIP=10.0.0.9").matches(Json::parse(R"({"status": {"podIP": "10.0.0.9"}})")));
}

TEST(BuiltinFieldLabelsTest, ListsKubeApiserversLabels) {
  EXPECT_EQ(builtinFieldLabels("", "Node"),
            (std::vector<std::string>{"metadata.name", "spec.unschedulable"}));
  EXPECT_EQ(builtinFieldLabels("", "Secret"),
            (std::vector<std::string>{"type", "metadata.namespace", "metadata.name"}));
  EXPECT_EQ(builtinFieldLabels("apps", "Deployment"),
            (std::vector<std::string>{"metadata.name", "metadata.namespace"}));
  const std::vector<std::string> pod = builtinFieldLabels("", "Pod");
  for (const char* label :
       {"metadata.name", "metadata.namespace", "spec.nodeName", "spec.restartPolicy",
        "spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork", "status.phase",
        "status.podIP", "status.nominatedNodeName"}) {
    EXPECT_NE(std::find(pod.begin(), pod.end(), label), pod.end()) << label;
  }
  EXPECT_EQ(builtinFieldLabels("", "Event").size(), 13U);
  EXPECT_EQ(builtinFieldLabels("", "Namespace"),
            (std::vector<std::string>{"status.phase", "metadata.name"}));
}

}  // namespace
}  // namespace nodewright::apiserver
