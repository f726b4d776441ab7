// Bad input through kubectl: the error kubectl prints must name the offending field, the HTTP
// status must be the one kube-apiserver uses, and nothing may be stored.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "apiserver/kubectl/kubectl_support.h"

namespace nodewright::apiserver::testing {
namespace {

using ::testing::HasSubstr;

const char* kNodePool = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: NAME
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      expireAfter: 720h
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: 1m
)";

std::string nodePool(const std::string& name, const std::string& from = "",
                     const std::string& to = "") {
  std::string text = kNodePool;
  text.replace(text.find("NAME"), 4, name);
  if (!from.empty()) {
    text.replace(text.find(from), from.size(), to);
  }
  return text;
}

class KubectlErrors : public KubectlSuite<KubectlErrors> {};

TEST_F(KubectlErrors, UnknownFieldIsRejectedByName) {
  Ran ran = run({"apply", "-f", "-", "-v=6"}, nodePool("typo", "expireAfter", "expireAftr"));
  EXPECT_NE(ran.code, 0);
  EXPECT_THAT(ran.err, HasSubstr("fieldValidation=Strict"));
  EXPECT_THAT(ran.err, HasSubstr("400 Bad Request"));
  EXPECT_THAT(ran.err, HasSubstr("Error from server (BadRequest)"));
  EXPECT_THAT(ran.err, HasSubstr("strict decoding error: unknown field "
                                 "\"spec.template.spec.expireAftr\""));
  EXPECT_FALSE(exists({"nodepool", "typo"}));
}

TEST_F(KubectlErrors, UnknownFieldWithValidateWarnIsStoredWithAWarning) {
  Ran ran = run({"apply", "--validate=warn", "-f", "-"},
                nodePool("typo-warn", "expireAfter", "expireAftr"));
  EXPECT_EQ(ran.code, 0) << ran.err;
  EXPECT_THAT(ran.err, HasSubstr("Warning: unknown field \"spec.template.spec.expireAftr\""));
  Json live = getJson({"nodepool", "typo-warn"});
  // Unknown fields are pruned, as for a structural CRD schema.
  EXPECT_FALSE(live["spec"]["template"]["spec"].contains("expireAftr"));
}

TEST_F(KubectlErrors, UnknownFieldWithValidateFalseIsDroppedSilently) {
  Ran ran = run({"apply", "--validate=false", "-f", "-"},
                nodePool("typo-ignored", "expireAfter", "expireAftr"));
  EXPECT_EQ(ran.code, 0) << ran.err;
  EXPECT_EQ(ran.err, "");
  EXPECT_FALSE(
      getJson({"nodepool", "typo-ignored"})["spec"]["template"]["spec"].contains("expireAftr"));
}

TEST_F(KubectlErrors, UnknownFieldInABuiltinKindIsRejectedByName) {
  std::string ns = makeNamespace("builtin-unknown");
  Ran ran = run({"apply", "-f", "-"}, R"({"apiVersion":"apps/v1","kind":"Deployment",
      "metadata":{"name":"typo","namespace":"builtin-unknown"},
      "spec":{"replicaz":2,"selector":{"matchLabels":{"app":"x"}},
              "template":{"metadata":{"labels":{"app":"x"}},
                          "spec":{"containers":[{"name":"c","image":"nginx"}]}}}})");
  EXPECT_NE(ran.code, 0);
  EXPECT_THAT(ran.err, HasSubstr("unknown field \"spec.replicaz\""));
  EXPECT_FALSE(exists({"deployment", "typo", "-n", ns}));
}

TEST_F(KubectlErrors, InvalidValuesAre422WithEveryFieldPath) {
  Ran ran = run({"apply", "-f", "-", "-v=6"}, nodePool("invalid", "consolidationPolicy: WhenEmpty",
                                                       "consolidationPolicy: Never") +
                                                  "    budgets:\n      - nodes: \"ten\"\n");
  EXPECT_NE(ran.code, 0);
  EXPECT_THAT(ran.err, HasSubstr("422 Unprocessable Entity"));
  EXPECT_THAT(ran.err, HasSubstr("The NodePool \"invalid\" is invalid:"));
  EXPECT_THAT(ran.err, HasSubstr("spec.disruption.consolidationPolicy: Unsupported value: "
                                 "\"Never\": supported values: \"WhenEmpty\", "
                                 "\"WhenEmptyOrUnderutilized\""));
  EXPECT_THAT(ran.err, HasSubstr("spec.disruption.budgets[0].nodes"));
  EXPECT_FALSE(exists({"nodepool", "invalid"}));
}

TEST_F(KubectlErrors, InvalidNetworkInterfacesNameTheirIndex) {
  Ran ran = run({"apply", "-f", "-"}, R"(apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: bad-nics}
spec:
  role: KarpenterNodeRole
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
  networkInterfaces:
    - {networkCardIndex: 1, deviceIndex: 0, interfaceType: efa}
    - {networkCardIndex: 0, deviceIndex: 1, interfaceType: infiniband}
)");
  EXPECT_NE(ran.code, 0);
  EXPECT_THAT(ran.err, HasSubstr("The EC2NodeClass \"bad-nics\" is invalid"));
  // Karpenter v1.14's interfaceType enum is interface and efa-only, and the list needs an
  // "interface" at card 0, device 0 (aws/karpenter-provider-aws v1.14.1
  // pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml, networkInterfaces).
  EXPECT_THAT(ran.err, HasSubstr("spec.networkInterfaces[0].interfaceType: Unsupported value: "
                                 "\"efa\""));
  EXPECT_THAT(ran.err, HasSubstr("spec.networkInterfaces[1].interfaceType: Unsupported value: "
                                 "\"infiniband\""));
  EXPECT_THAT(ran.err, HasSubstr("spec.networkInterfaces: Invalid value: \"array\": "
                                 "networkInterfaces must include a primary interface"));
  EXPECT_FALSE(exists({"ec2nodeclass", "bad-nics"}));
}

TEST_F(KubectlErrors, WrongTypeNamesTheField) {
  Ran ran =
      run({"apply", "-f", "-"},
          nodePool("wrong-type", "spec:\n  template:", "spec:\n  weight: heavy\n  template:"));
  EXPECT_NE(ran.code, 0);
  EXPECT_THAT(ran.err, HasSubstr("spec.weight"));
  EXPECT_THAT(ran.err, HasSubstr("Invalid value"));
  EXPECT_FALSE(exists({"nodepool", "wrong-type"}));
}

TEST_F(KubectlErrors, InvalidBuiltinValuesAre422) {
  std::string ns = makeNamespace("builtin-invalid");
  Ran ran = run({"apply", "-f", "-", "-v=6"}, R"({"apiVersion":"apps/v1","kind":"Deployment",
      "metadata":{"name":"negative","namespace":"builtin-invalid"},
      "spec":{"replicas":-1,"selector":{"matchLabels":{"app":"x"}},
              "template":{"metadata":{"labels":{"app":"other"}},
                          "spec":{"containers":[{"name":"c","image":"nginx"}]}}}})");
  EXPECT_NE(ran.code, 0);
  EXPECT_THAT(ran.err, HasSubstr("422 Unprocessable Entity"));
  EXPECT_THAT(ran.err, HasSubstr("spec.replicas: Invalid value: -1: must be greater than or "
                                 "equal to 0"));
  EXPECT_THAT(ran.err, HasSubstr("spec.template.metadata.labels"));
  EXPECT_THAT(ran.err, HasSubstr("`selector` does not match template `labels`"));
  EXPECT_FALSE(exists({"deployment", "negative", "-n", ns}));

  Ran noContainers = run({"apply", "-f", "-"}, R"({"apiVersion":"v1","kind":"Pod",
      "metadata":{"name":"empty","namespace":"builtin-invalid"},"spec":{"containers":[]}})");
  EXPECT_NE(noContainers.code, 0);
  EXPECT_THAT(noContainers.err, HasSubstr("spec.containers: Required value"));
}

TEST_F(KubectlErrors, InvalidObjectNamesAreRejected) {
  std::string ns = makeNamespace("bad-names");
  Ran ran = run({"apply", "-f", "-", "-v=6"},
                R"({"apiVersion":"v1","kind":"ConfigMap",
                    "metadata":{"name":"Not_A_DNS_Name","namespace":"bad-names"}})");
  EXPECT_NE(ran.code, 0);
  EXPECT_THAT(ran.err, HasSubstr("422 Unprocessable Entity"));
  EXPECT_THAT(ran.err, HasSubstr("metadata.name: Invalid value: \"Not_A_DNS_Name\": a lowercase "
                                 "RFC 1123 subdomain must consist of"));
  EXPECT_FALSE(exists({"configmap", "Not_A_DNS_Name", "-n", ns}));

  Ran pool = run({"apply", "-f", "-"}, nodePool("Upper_Case"));
  EXPECT_NE(pool.code, 0);
  EXPECT_THAT(pool.err, HasSubstr("metadata.name: Invalid value: \"Upper_Case\""));
}

TEST_F(KubectlErrors, InvalidLabelsAreRejected) {
  std::string ns = makeNamespace("bad-labels");
  Ran ran = run({"apply", "-f", "-"}, R"({"apiVersion":"v1","kind":"ConfigMap",
      "metadata":{"name":"labelled","namespace":"bad-labels","labels":{"bad key!":"v"}}})");
  EXPECT_NE(ran.code, 0);
  EXPECT_THAT(ran.err, HasSubstr("metadata.labels: Invalid value: \"bad key!\""));
  Ran value = run({"apply", "-f", "-"}, R"({"apiVersion":"v1","kind":"ConfigMap",
      "metadata":{"name":"labelled","namespace":"bad-labels","labels":{"ok":"not valid"}}})");
  EXPECT_NE(value.code, 0);
  EXPECT_THAT(value.err, HasSubstr("metadata.labels: Invalid value: \"not valid\""));
  EXPECT_FALSE(exists({"configmap", "labelled", "-n", ns}));
}

TEST_F(KubectlErrors, ImmutableFieldsCannotChange) {
  std::string ns = makeNamespace("immutable");
  ok({"apply", "-f", "-"}, R"({"apiVersion":"apps/v1","kind":"Deployment",
      "metadata":{"name":"web","namespace":"immutable"},
      "spec":{"selector":{"matchLabels":{"app":"web"}},
              "template":{"metadata":{"labels":{"app":"web"}},
                          "spec":{"containers":[{"name":"c","image":"nginx"}]}}}})");
  Ran ran = run({"patch", "deployment", "web", "-n", ns, "-p",
                 R"({"spec":{"selector":{"matchLabels":{"app":"new"}},)"
                 R"("template":{"metadata":{"labels":{"app":"new"}}}}})"});
  EXPECT_NE(ran.code, 0);
  EXPECT_THAT(ran.err, HasSubstr("spec.selector"));
  EXPECT_THAT(ran.err, HasSubstr("field is immutable"));
  EXPECT_EQ(getJson({"deployment", "web", "-n", ns})["spec"]["selector"]["matchLabels"]["app"],
            "web");
}

TEST_F(KubectlErrors, CreatingTwiceIsAlreadyExists) {
  std::string ns = makeNamespace("exists");
  std::string cm =
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"once","namespace":"exists"}})";
  ok({"create", "-f", "-"}, cm);
  EXPECT_EQ(fails({"create", "-f", "-"}, cm),
            "Error from server (AlreadyExists): error when creating \"STDIN\": configmaps "
            "\"once\" already exists\n");
}

TEST_F(KubectlErrors, StaleReplaceIsAConflict) {
  std::string ns = makeNamespace("conflict");
  ok({"apply", "-f", "-"},
     R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"conflict"}})");
  std::string stale = ok({"get", "configmap", "cm", "-n", ns, "-o", "json"});
  ok({"label", "configmap", "cm", "-n", ns, "changed=yes"});
  EXPECT_THAT(fails({"replace", "-f", "-"}, stale),
              HasSubstr("Error from server (Conflict): error when replacing \"STDIN\": Operation "
                        "cannot be fulfilled on configmaps \"cm\": the object has been modified; "
                        "please apply your changes to the latest version and try again"));
}

TEST_F(KubectlErrors, MissingThingsAreNotFound) {
  EXPECT_EQ(fails({"get", "nodepool", "absent"}),
            "Error from server (NotFound): nodepools.karpenter.sh \"absent\" not found\n");
  EXPECT_THAT(fails({"apply", "-f", "-"}, R"({"apiVersion":"v1","kind":"ConfigMap",
      "metadata":{"name":"x","namespace":"no-such-namespace"}})"),
              HasSubstr("namespaces \"no-such-namespace\" not found"));
  EXPECT_THAT(fails({"get", "widgets"}),
              HasSubstr("the server doesn't have a resource type \"widgets\""));
  EXPECT_THAT(fails({"apply", "-f", "-"},
                    R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}})"),
              HasSubstr("no matches for kind \"Widget\" in version \"example.com/v1\""));
}

}  // namespace
}  // namespace nodewright::apiserver::testing
