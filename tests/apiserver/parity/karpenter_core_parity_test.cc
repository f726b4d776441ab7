// Admission parity with Karpenter v1.14 for karpenter.sh/v1 NodePool and NodeClaim: every case
// of upstream's validation suites, as a manifest written here, against one embedded API server.
// Sources: kubernetes-sigs/karpenter v1.14.1 pkg/apis/v1/nodepool_validation_cel_test.go and
// nodeclaim_validation_cel_test.go; aws/karpenter-provider-aws v1.14.1
// pkg/apis/v1/nodepool_validation_cel_test.go ("aws/..."); and, for rules no upstream test
// exercises, the CRDs' x-kubernetes-validations (pkg/apis/crds/*.yaml).
//
// Each row says what kube-apiserver answers: 201, or 422 naming the field path (and then nothing
// is stored). Where upstream checks at runtime (NodePool RuntimeValidate), admission accepts and
// the row says whether runtime validation passes. Left out: the spec.replicas (static NodePool)
// cases of nodepool_validation_cel_test.go:764-941, which come with that field.

#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

#include "api/karpenter/nodepool.h"
#include "api/karpenter/runtime_validation.h"
#include "api/object.h"
#include "api/registry.h"
#include "api/yaml.h"
#include "apiserver/patch/merge_patch.h"
#include "support/apiserver/test_server.h"

namespace nodewright::apiserver {
namespace {

using api::Json;

enum class Kind { NodePool, AwsNodePool, NodeClaim };
enum class Runtime { Unchecked, Valid, Invalid };

struct Case {
  std::string name;
  std::string source;  // upstream file:line
  Kind kind;
  std::string yaml;  // merged (RFC 7386) into the kind's base manifest
  bool accept;
  std::string path;  // reject: the field path kube-apiserver names
  Runtime runtime = Runtime::Unchecked;
  std::string update;  // set: create `yaml`, then update with this merged in; accept/path apply
};

const char* const kNP = "nodepool_validation_cel_test.go:";
const char* const kNC = "nodeclaim_validation_cel_test.go:";
const char* const kAWS = "aws/nodepool_validation_cel_test.go:";

std::string src(const char* file, int line) {
  return file + std::to_string(line);
}

Case ok(std::string name, std::string source, Kind kind, std::string yaml,
        Runtime runtime = Runtime::Unchecked) {
  return {std::move(name), std::move(source), kind, std::move(yaml), true, "", runtime, ""};
}

Case bad(std::string name, std::string source, Kind kind, std::string yaml, std::string path,
         Runtime runtime = Runtime::Unchecked) {
  return {std::move(name), std::move(source), kind,    std::move(yaml),
          false,           std::move(path),   runtime, ""};
}

// YAML for a NodePool's spec.template.spec (or a NodeClaim's spec) holding `body`.
std::string poolSpec(const std::string& body) {
  return "spec:\n  template:\n    spec:\n" + body;
}
std::string claimSpec(const std::string& body) {
  return "spec:\n" + body;
}
std::string templateField(Kind kind, const std::string& field) {
  if (kind == Kind::NodeClaim) {
    return claimSpec("  " + field + "\n");
  }
  return poolSpec("      " + field + "\n");
}
std::string specPath(Kind kind, const std::string& field) {
  return (kind == Kind::NodeClaim ? "spec." : "spec.template.spec.") + field;
}
std::string requirements(Kind kind, const std::string& flowList) {
  return templateField(kind, "requirements: " + flowList);
}
std::string taints(Kind kind, const std::string& flowList) {
  return templateField(kind, "taints: " + flowList);
}
std::string labels(const std::string& flowMap) {
  return "spec:\n  template:\n    metadata:\n      labels: " + flowMap + "\n";
}
std::string disruption(const std::string& flowMap) {
  return "spec:\n  disruption: " + flowMap + "\n";
}
std::string budget(const std::string& flowList) {
  return disruption("{consolidateAfter: 0s, budgets: " + flowList + "}");
}

// Karpenter's WellKnownLabels (core), and the AWS provider's additions (aws labels.go init).
const std::vector<std::string> kCoreWellKnown = {"topology.kubernetes.io/zone",
                                                 "topology.kubernetes.io/region",
                                                 "node.kubernetes.io/instance-type",
                                                 "kubernetes.io/arch",
                                                 "kubernetes.io/os",
                                                 "node.kubernetes.io/windows-build"};
const std::vector<std::string> kAwsWellKnown = {
    "karpenter.k8s.aws/capacity-reservation-id",
    "karpenter.k8s.aws/capacity-reservation-type",
    "karpenter.k8s.aws/capacity-reservation-interruptible",
    "karpenter.k8s.aws/instance-hypervisor",
    "karpenter.k8s.aws/instance-encryption-in-transit-supported",
    "karpenter.k8s.aws/instance-category",
    "karpenter.k8s.aws/instance-capability-flex",
    "karpenter.k8s.aws/instance-family",
    "karpenter.k8s.aws/instance-generation",
    "karpenter.k8s.aws/instance-size",
    "karpenter.k8s.aws/instance-local-nvme",
    "karpenter.k8s.aws/instance-cpu",
    "karpenter.k8s.aws/instance-cpu-manufacturer",
    "karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz",
    "karpenter.k8s.aws/instance-memory",
    "karpenter.k8s.aws/instance-ebs-bandwidth",
    "karpenter.k8s.aws/instance-network-bandwidth",
    "karpenter.k8s.aws/instance-gpu-name",
    "karpenter.k8s.aws/instance-gpu-manufacturer",
    "karpenter.k8s.aws/instance-gpu-count",
    "karpenter.k8s.aws/instance-gpu-memory",
    "karpenter.k8s.aws/instance-accelerator-name",
    "karpenter.k8s.aws/instance-accelerator-manufacturer",
    "karpenter.k8s.aws/instance-accelerator-count",
    "topology.k8s.aws/zone-id",
    "karpenter.k8s.aws/placement-group-id",
    "karpenter.k8s.aws/placement-group-partition"};

// 250 lower-case alphanumerics: upstream's randomdata.Alphanumeric(250), lowered.
std::string longPart() {
  std::string out;
  for (int i = 0; i < 250; ++i) {
    out += "abcdefghijklmnopqrstuvwxyz0123456789"[i % 36];
  }
  return out;
}

void addDisruptionCases(std::vector<Case>& c) {
  const Kind P = Kind::NodePool;
  c.push_back(ok("expireAfter Never", src(kNP, 71), P, poolSpec("      expireAfter: Never\n")));
  for (auto [line, v] :
       std::vector<std::pair<int, const char*>>{{84, "30s"}, {85, "1h30m5s"}, {86, "Never"}}) {
    c.push_back(ok(std::string("expireAfter ") + v, src(kNP, line), P,
                   poolSpec(std::string("      expireAfter: ") + v + "\n")));
  }
  for (auto [line, v] :
       std::vector<std::pair<int, const char*>>{{96, "-1s"}, {97, "1hr"}, {98, "FooNever"}}) {
    c.push_back(bad(std::string("expireAfter ") + v, src(kNP, line), P,
                    poolSpec(std::string("      expireAfter: ") + v + "\n"),
                    "spec.template.spec.expireAfter"));
  }
  c.push_back(
      ok("consolidateAfter Never", src(kNP, 100), P, disruption("{consolidateAfter: Never}")));
  for (auto [line, v] :
       std::vector<std::pair<int, const char*>>{{112, "30s"}, {113, "1h30m5s"}, {114, "Never"}}) {
    c.push_back(ok(std::string("consolidateAfter ") + v, src(kNP, line), P,
                   disruption(std::string("{consolidateAfter: ") + v + "}")));
  }
  for (auto [line, v] :
       std::vector<std::pair<int, const char*>>{{124, "-1s"}, {125, "1hr"}, {126, "FooNever"}}) {
    c.push_back(bad(std::string("consolidateAfter ") + v, src(kNP, line), P,
                    disruption(std::string("{consolidateAfter: ") + v + "}"),
                    "spec.disruption.consolidateAfter"));
  }
  c.push_back(ok("consolidateAfter with WhenEmpty", src(kNP, 128), P,
                 disruption("{consolidateAfter: 30s, consolidationPolicy: WhenEmpty}")));
  c.push_back(
      ok("consolidateAfter with WhenEmptyOrUnderutilized", src(kNP, 133), P,
         disruption("{consolidateAfter: 30s, consolidationPolicy: WhenEmptyOrUnderutilized}")));
  c.push_back(
      ok("consolidateAfter Never with WhenEmptyOrUnderutilized", src(kNP, 138), P,
         disruption("{consolidateAfter: Never, consolidationPolicy: WhenEmptyOrUnderutilized}")));
  c.push_back(ok("consolidateAfter Never with WhenEmpty", src(kNP, 143), P,
                 disruption("{consolidateAfter: Never, consolidationPolicy: WhenEmpty}")));
  for (auto [line, v] : std::vector<std::pair<int, const char*>>{
           {156, "WhenEmpty"}, {157, "WhenEmptyOrUnderutilized"}, {158, "Balanced"}}) {
    c.push_back(
        ok(std::string("consolidationPolicy ") + v, src(kNP, line), P,
           disruption(std::string("{consolidateAfter: 0s, consolidationPolicy: ") + v + "}")));
  }
  for (auto [line, v] : std::vector<std::pair<int, const char*>>{{168, "1"},
                                                                 {169, "2"},
                                                                 {170, "3"},
                                                                 {171, "0"},
                                                                 {172, "4"},
                                                                 {173, "10"},
                                                                 {174, "balanced"},
                                                                 {175, "whenempty"},
                                                                 {176, ""},
                                                                 {177, "WhenUnderutilized"},
                                                                 {178, "foo"}}) {
    c.push_back(
        bad(std::string("consolidationPolicy '") + v + "'", src(kNP, line), P,
            disruption(std::string("{consolidateAfter: 0s, consolidationPolicy: \"") + v + "\"}"),
            "spec.disruption.consolidationPolicy"));
  }
  for (auto [line, v] : std::vector<std::pair<int, const char*>>{
           {185, "WhenEmpty"}, {186, "WhenEmptyOrUnderutilized"}, {187, "Balanced"}}) {
    c.push_back(
        ok(std::string("runtime-valid consolidationPolicy ") + v, src(kNP, line), P,
           disruption(std::string("{consolidateAfter: 0s, consolidationPolicy: ") + v + "}"),
           Runtime::Valid));
  }
  c.push_back(bad("budget cron '*'", src(kNP, 189), P,
                  budget("[{nodes: '10', schedule: '*', duration: 20m}]"),
                  "spec.disruption.budgets[0].schedule"));
  c.push_back(bad("budget cron with four fields", src(kNP, 197), P,
                  budget("[{nodes: '10', schedule: '* * * * ', duration: 20m}]"),
                  "spec.disruption.budgets[0].schedule"));
  c.push_back(bad("budget negative duration", src(kNP, 205), P,
                  budget("[{nodes: '10', schedule: '* * * * *', duration: -20m}]"),
                  "spec.disruption.budgets[0].duration"));
  c.push_back(bad("budget seconds duration", src(kNP, 213), P,
                  budget("[{nodes: '10', schedule: '* * * * *', duration: 30s}]"),
                  "spec.disruption.budgets[0].duration"));
  c.push_back(bad("budget nodes -10", src(kNP, 221), P, budget("[{nodes: '-10'}]"),
                  "spec.disruption.budgets[0].nodes"));
  c.push_back(bad("budget nodes -10%", src(kNP, 227), P, budget("[{nodes: '-10%'}]"),
                  "spec.disruption.budgets[0].nodes"));
  c.push_back(bad("budget nodes 1000%", src(kNP, 233), P, budget("[{nodes: '1000%'}]"),
                  "spec.disruption.budgets[0].nodes"));
  c.push_back(bad("budget cron without duration", src(kNP, 239), P,
                  budget("[{nodes: '10', schedule: '* * * * *'}]"), "spec.disruption.budgets"));
  c.push_back(bad("budget duration without cron", src(kNP, 246), P,
                  budget("[{nodes: '10', duration: 20m}]"), "spec.disruption.budgets"));
  c.push_back(ok("budget with cron and duration", src(kNP, 253), P,
                 budget("[{nodes: '10', schedule: '* * * * *', duration: 20m}]")));
  c.push_back(ok("budget duration in hours and minutes", src(kNP, 261), P,
                 budget("[{nodes: '10', schedule: '* * * * *', duration: 2h20m}]")));
  c.push_back(ok("budget without cron or duration", src(kNP, 269), P, budget("[{nodes: '10'}]")));
  c.push_back(ok("budget @annually", src(kNP, 275), P,
                 budget("[{nodes: '10', schedule: '@annually', duration: 20m}]")));
  c.push_back(bad("second budget has a bad cron", src(kNP, 283), P,
                  budget("[{nodes: '10', schedule: '@annually', duration: 20m}, "
                         "{nodes: '10', schedule: '*', duration: 20m}]"),
                  "spec.disruption.budgets[1].schedule"));
  c.push_back(bad("one of three budgets lacks its cron", src(kNP, 297), P,
                  budget("[{nodes: '10', duration: 20m}, "
                         "{nodes: '10', schedule: '* * * * *', duration: 20m}, {nodes: '10'}]"),
                  "spec.disruption.budgets"));
  for (auto [line, v] : std::vector<std::pair<int, const char*>>{
           {323, "Drifted"}, {324, "Underutilized"}, {325, "Empty"}}) {
    c.push_back(ok(std::string("budget reason ") + v, src(kNP, line), P,
                   budget(std::string("[{nodes: '10', schedule: '* * * * *', duration: 20m, "
                                      "reasons: [") +
                          v + "]}]")));
  }
  for (auto [line, v] :
       std::vector<std::pair<int, const char*>>{{337, "invalid"}, {338, "expired"}, {339, ""}}) {
    c.push_back(bad(std::string("budget reason '") + v + "'", src(kNP, line), P,
                    budget(std::string("[{nodes: '10', schedule: '* * * * *', duration: 20m, "
                                       "reasons: [\"") +
                           v + "\"]}]"),
                    "spec.disruption.budgets[0].reasons[0]"));
  }
  c.push_back(ok("budget with two reasons", src(kNP, 342), P,
                 budget("[{nodes: '10', schedule: '* * * * *', duration: 20m, "
                        "reasons: [Drifted, Empty]}]")));
}

void addTaintCases(std::vector<Case>& c, Kind kind, const char* file) {
  const bool pool = kind != Kind::NodeClaim;
  const Runtime valid = pool ? Runtime::Valid : Runtime::Unchecked;
  const Runtime invalid = pool ? Runtime::Invalid : Runtime::Unchecked;
  if (pool) {
    c.push_back(ok("valid taints", src(file, 353), kind,
                   taints(kind,
                          "[{key: a, value: b, effect: NoSchedule}, {key: c, value: d, effect: "
                          "NoExecute}, {key: e, value: f, effect: PreferNoSchedule}, {key: Test, "
                          "value: f, effect: PreferNoSchedule}, {key: test.com/Test, value: f, "
                          "effect: PreferNoSchedule}, {key: test.com.com/test, value: f, effect: "
                          "PreferNoSchedule}, {key: key-only, effect: NoExecute}]"),
                   valid));
    for (auto [line, key] : std::vector<std::pair<int, const char*>>{{367, "test.com.com}"},
                                                                     {370, "Test.com/test"},
                                                                     {373, "test/test/test"},
                                                                     {376, "test/"},
                                                                     {379, "/test"}}) {
      c.push_back(bad(std::string("taint key ") + key, src(file, line), kind,
                      taints(kind, std::string("[{key: '") + key + "', effect: NoSchedule}]"),
                      specPath(kind, "taints[0].key"), invalid));
    }
    c.push_back(
        ok("taint key with a too long prefix", src(file, 385), kind,
           taints(kind, "[{key: 'test.com.test." + longPart() + "/test', effect: NoSchedule}]"),
           invalid));
    c.push_back(
        ok("taint key with a too long name", src(file, 390), kind,
           taints(kind, "[{key: 'test.com.test/test-" + longPart() + "', effect: NoSchedule}]"),
           invalid));
  } else {
    c.push_back(ok("valid taints", src(file, 64), kind,
                   taints(kind,
                          "[{key: a, value: b, effect: NoSchedule}, {key: c, value: d, effect: "
                          "NoExecute}, {key: e, value: f, effect: PreferNoSchedule}, {key: "
                          "key-only, effect: NoExecute}]")));
    c.push_back(bad("taint key ???", src(file, 74), kind, taints(kind, "[{key: '?\?\?'}]"),
                    "spec.taints[0]"));
  }
  c.push_back(bad("taint without key", src(file, pool ? 394 : 77), kind,
                  taints(kind, "[{effect: NoSchedule}]"), specPath(kind, "taints[0].key"),
                  invalid));
  c.push_back(bad("taint value ???", src(file, pool ? 399 : 81), kind,
                  taints(kind, "[{key: invalid-value, effect: NoSchedule, value: '?\?\?'}]"),
                  specPath(kind, "taints[0].value"), invalid));
  c.push_back(bad("taint effect ???", src(file, pool ? 404 : 85), kind,
                  taints(kind, "[{key: invalid-effect, effect: '?\?\?'}]"),
                  specPath(kind, "taints[0].effect"), invalid));
  c.push_back(ok("same taint key, different effects", src(file, pool ? 409 : 89), kind,
                 taints(kind, "[{key: a, effect: NoSchedule}, {key: a, effect: NoExecute}]"),
                 valid));
}

void addRequirementCases(std::vector<Case>& c, Kind kind, const char* file) {
  const bool pool = kind != Kind::NodeClaim;
  const Runtime valid = pool ? Runtime::Valid : Runtime::Unchecked;
  const Runtime invalid = pool ? Runtime::Invalid : Runtime::Unchecked;
  auto line = [&](int poolLine, int claimLine) { return src(file, pool ? poolLine : claimLine); };
  const std::string reqs = specPath(kind, "requirements");
  if (pool) {
    c.push_back(ok("valid requirement keys", line(419, 0), kind,
                   requirements(kind,
                                "[{key: Test, operator: Exists}, {key: test.com/Test, operator: "
                                "Exists}, {key: test.com.com/test, operator: Exists}, {key: "
                                "key-only, operator: Exists}]"),
                   valid));
    for (auto [l, key] : std::vector<std::pair<int, const char*>>{{430, "test.com.com}"},
                                                                  {433, "Test.com/test"},
                                                                  {436, "test/test/test"},
                                                                  {439, "test/"},
                                                                  {442, "/test"}}) {
      c.push_back(bad(std::string("requirement key ") + key, src(file, l), kind,
                      requirements(kind, std::string("[{key: '") + key + "', operator: Exists}]"),
                      reqs + "[0].key", invalid));
    }
    c.push_back(
        ok("requirement key with a too long prefix", src(file, 448), kind,
           requirements(kind, "[{key: 'test.com.test." + longPart() + "/test', operator: Exists}]"),
           invalid));
    c.push_back(
        ok("requirement key with a too long name", src(file, 453), kind,
           requirements(kind, "[{key: 'test.com.test/test-" + longPart() + "', operator: Exists}]"),
           invalid));
    c.push_back(bad("requirement on karpenter.sh/nodepool", src(file, 457), kind,
                    requirements(kind,
                                 "[{key: karpenter.sh/nodepool, operator: In, values: "
                                 "[silly]}]"),
                    reqs + "[0].key", invalid));
  }
  c.push_back(ok("supported operators", line(463, 116), kind,
                 requirements(kind,
                              "[{key: topology.kubernetes.io/zone, operator: In, values: [test]}, "
                              "{key: topology.kubernetes.io/zone, operator: Gt, values: ['1']}, "
                              "{key: topology.kubernetes.io/zone, operator: Lt, values: ['1']}, "
                              "{key: topology.kubernetes.io/zone, operator: NotIn}, "
                              "{key: topology.kubernetes.io/zone, operator: Exists}]"),
                 valid));
  c.push_back(bad("unsupported operator", line(477, 129), kind,
                  requirements(kind,
                               "[{key: topology.kubernetes.io/zone, operator: unknown, "
                               "values: [test]}]"),
                  reqs + "[0].operator", invalid));
  c.push_back(bad("restricted domain karpenter.sh", line(486, 137), kind,
                  requirements(kind, "[{key: karpenter.sh/test, operator: In, values: [test]}]"),
                  reqs + "[0].key", invalid));
  // The AWS provider adds its group to RestrictedLabelDomains (aws labels.go init).
  c.push_back(
      bad("restricted domain karpenter.k8s.aws", line(486, 137), kind,
          requirements(kind, "[{key: karpenter.k8s.aws/test, operator: In, values: [test]}]"),
          reqs + "[0].key", invalid));
  c.push_back(bad("restricted label kubernetes.io/hostname", line(495, 145), kind,
                  requirements(kind,
                               "[{key: kubernetes.io/hostname/test, operator: In, values: "
                               "[test]}]"),
                  reqs + "[0].key", invalid));
  for (const char* domain : {"kubernetes.io", "k8s.io"}) {
    c.push_back(ok(std::string("requirement in domain ") + domain, line(505, 154), kind,
                   requirements(kind, std::string("[{key: ") + domain +
                                          "/test, operator: In, values: [test]}]"),
                   valid));
    c.push_back(ok(std::string("requirement in subdomain of ") + domain, line(517, 165), kind,
                   requirements(kind, std::string("[{key: subdomain.") + domain +
                                          "/test, operator: In, values: [test]}]"),
                   valid));
  }
  std::vector<std::string> wellKnown = kCoreWellKnown;
  if (!pool) {
    wellKnown.push_back("karpenter.sh/capacity-type");  // runtime-validated on NodePools only
  }
  for (const std::string& key : wellKnown) {
    c.push_back(ok("well-known requirement " + key, line(530, 176), kind,
                   requirements(kind, "[{key: " + key + ", operator: In, values: [test]}]"),
                   valid));
  }
  c.push_back(ok("non-empty after removing overlap", line(538, 183), kind,
                 requirements(kind,
                              "[{key: topology.kubernetes.io/zone, operator: In, values: [test, "
                              "foo]}, {key: topology.kubernetes.io/zone, operator: NotIn, "
                              "values: [test, bar]}]"),
                 valid));
  c.push_back(ok("empty requirements", line(546, 190), kind, requirements(kind, "[]"), valid));
  int l = pool ? 553 : 196;
  for (const char* op : {"Gt", "Lt", "Gte", "Lte"}) {
    if (std::string(op) == "Gte") {
      l = pool ? 569 : 211;
    }
    for (const char* values : {"[]", "['1', '2']", "[a]", "['-1']"}) {
      c.push_back(bad(std::string("operator ") + op + " with values " + values, src(file, l++),
                      kind,
                      requirements(kind, std::string("[{key: topology.kubernetes.io/zone, "
                                                     "operator: ") +
                                             op + ", values: " + values + "}]"),
                      reqs, invalid));
    }
  }
  c.push_back(bad("minValues -1", line(585, 226), kind,
                  requirements(kind,
                               "[{key: node.kubernetes.io/instance-type, operator: In, "
                               "values: [insance-type-1], minValues: -1}]"),
                  reqs + "[0].minValues"));
  c.push_back(bad("minValues 0", line(591, 232), kind,
                  requirements(kind,
                               "[{key: node.kubernetes.io/instance-type, operator: In, "
                               "values: [insance-type-1], minValues: 0}]"),
                  reqs + "[0].minValues"));
  c.push_back(bad("minValues 51", line(597, 238), kind,
                  requirements(kind,
                               "[{key: node.kubernetes.io/instance-type, operator: "
                               "Exists, minValues: 51}]"),
                  reqs + "[0].minValues"));
  std::string ninety;
  for (int i = 0; i < 90; ++i) {
    ninety += (i ? ", instance" : "instance") + std::to_string(i);
  }
  c.push_back(ok("90 values without minValues", line(601, 242), kind,
                 requirements(kind,
                              "[{key: node.kubernetes.io/instance-type, operator: In, "
                              "values: [" +
                                  ninety + "]}]")));
  c.push_back(bad("minValues above the number of values", line(613, 254), kind,
                  requirements(kind,
                               "[{key: node.kubernetes.io/instance-type, operator: In, "
                               "values: [insance-type-1], minValues: 2}]"),
                  reqs));
  if (!pool) {
    std::string many;
    for (int i = 0; i < 101; ++i) {
      many += std::string(i ? ", " : "") + "{key: key-" + std::to_string(i) +
              ", operator: In, values: [v" + std::to_string(i) + "]}";
    }
    c.push_back(
        bad("101 requirements", src(file, 258), kind, requirements(kind, "[" + many + "]"), reqs));
  }
}

void addLabelCases(std::vector<Case>& c) {
  const Kind P = Kind::NodePool;
  const std::string at = "spec.template.metadata.labels";
  c.push_back(ok("unrecognized label", src(kNP, 619), P, labels("{foo: silly}"), Runtime::Valid));
  c.push_back(bad("label karpenter.sh/nodepool", src(kNP, 624), P,
                  labels("{karpenter.sh/nodepool: silly}"), at, Runtime::Invalid));
  c.push_back(ok("label key with spaces", src(kNP, 629), P,
                 labels("{'spaces are not allowed': silly}"), Runtime::Invalid));
  c.push_back(ok("label key with a too long prefix", src(kNP, 636), P,
                 labels("{'test.com.test." + longPart() + "/test': silly}"), Runtime::Invalid));
  c.push_back(ok("label key with a too long name", src(kNP, 641), P,
                 labels("{'test.com.test/test-" + longPart() + "': silly}"), Runtime::Invalid));
  c.push_back(bad("label value with '/'", src(kNP, 646), P, labels("{silly: '/ is not allowed'}"),
                  at, Runtime::Invalid));
  c.push_back(bad("label in domain karpenter.sh", src(kNP, 652), P,
                  labels("{karpenter.sh/unknown: silly}"), at, Runtime::Invalid));
  c.push_back(bad("label in domain karpenter.k8s.aws", src(kNP, 652), P,
                  labels("{karpenter.k8s.aws/unknown: silly}"), at, Runtime::Invalid));
  c.push_back(ok("kOps labels", src(kNP, 657), P,
                 labels("{kops.k8s.io/instancegroup: karpenter-nodes, kops.k8s.io/gpu: '1'}"),
                 Runtime::Valid));
  for (const char* domain : {"kubernetes.io", "k8s.io"}) {
    std::string d = domain;
    c.push_back(
        ok("label " + d, src(kNP, 669), P, labels("{" + d + ": test-value}"), Runtime::Valid));
    c.push_back(ok("label " + d + "/key", src(kNP, 681), P, labels("{" + d + "/key: test-value}"),
                   Runtime::Valid));
    c.push_back(ok("label subdomain." + d, src(kNP, 693), P,
                   labels("{subdomain." + d + ": test-value}"), Runtime::Valid));
    c.push_back(ok("label subdomain." + d + "/key", src(kNP, 705), P,
                   labels("{subdomain." + d + "/key: test-value}"), Runtime::Valid));
  }
}

void addDurationCases(std::vector<Case>& c, Kind kind, const char* file) {
  const bool pool = kind == Kind::NodePool;
  int l = pool ? 723 : 276;
  for (const char* v : {"30s", "1h30m5s"}) {
    c.push_back(ok(std::string("terminationGracePeriod ") + v, src(file, l++), kind,
                   templateField(kind, std::string("terminationGracePeriod: ") + v)));
  }
  l = pool ? 734 : 287;
  for (const char* v : {"-1s", "1hr", "Never", "FooNever"}) {
    c.push_back(bad(std::string("terminationGracePeriod ") + v, src(file, l++), kind,
                    templateField(kind, std::string("terminationGracePeriod: ") + v),
                    specPath(kind, "terminationGracePeriod")));
  }
  if (pool) {
    return;  // the NodePool's expireAfter rows are with disruption
  }
  l = 302;
  for (const char* v : {"30s", "1h30m5s", "Never"}) {
    c.push_back(ok(std::string("expireAfter ") + v, src(file, l++), kind,
                   templateField(kind, std::string("expireAfter: ") + v)));
  }
  l = 314;
  for (const char* v : {"-1s", "1hr", "FooNever"}) {
    c.push_back(bad(std::string("expireAfter ") + v, src(file, l++), kind,
                    templateField(kind, std::string("expireAfter: ") + v), "spec.expireAfter"));
  }
}

void addNodeClassRefCases(std::vector<Case>& c) {
  const Kind P = Kind::NodePool;
  const std::string ref = "spec.template.spec.nodeClassRef";
  Case group = bad("nodeClassRef.group changed by update", src(kNP, 741), P, "", ref);
  group.update = poolSpec("      nodeClassRef: {group: karpenter.test.mutated.sh}\n");
  c.push_back(group);
  Case kind = bad("nodeClassRef.kind changed by update", src(kNP, 746), P, "", ref);
  kind.update = poolSpec("      nodeClassRef: {kind: TestNodeClass2}\n");
  c.push_back(kind);
  Case name = ok("nodeClassRef.name changed by update", "karpenter.sh_nodepools.yaml:274", P, "");
  name.update = poolSpec("      nodeClassRef: {name: other}\n");
  c.push_back(name);
  for (auto [line, field] :
       std::vector<std::pair<int, const char*>>{{751, "group"}, {755, "kind"}, {759, "name"}}) {
    c.push_back(bad(std::string("nodeClassRef.") + field + " empty", src(kNP, line), P,
                    poolSpec(std::string("      nodeClassRef: {") + field + ": ''}\n"),
                    ref + "." + field));
  }
  const Kind C = Kind::NodeClaim;
  c.push_back(ok("nodeClassRef group of a registered kind", src(kNC, 98), C,
                 claimSpec("  nodeClassRef: {group: karpenter.test.sh, kind: TestNodeClass, "
                           "name: nodeclass-test}\n")));
  c.push_back(bad("nodeClassRef group with a version", src(kNC, 106), C,
                  claimSpec("  nodeClassRef: {group: karpenter.test.sh/v1, kind: TestNodeClass, "
                            "name: nodeclass-test}\n"),
                  "spec.nodeClassRef.group"));
  Case spec =
      bad("NodeClaim spec changed by update", "karpenter.sh_nodeclaims.yaml:295", C, "", "spec");
  spec.update = claimSpec("  taints: [{key: a, effect: NoSchedule}]\n");
  c.push_back(spec);
  Case meta = ok("NodeClaim labels changed by update", "karpenter.sh_nodeclaims.yaml:295", C, "");
  meta.update = "metadata:\n  labels: {team: a}\n";
  c.push_back(meta);
}

void addAwsCases(std::vector<Case>& c) {
  const Kind A = Kind::AwsNodePool;
  std::vector<std::string> keys = kCoreWellKnown;
  for (const std::string& k : kAwsWellKnown) {
    keys.push_back(k);
  }
  for (const std::string& key : keys) {
    c.push_back(ok("AWS well-known requirement " + key, src(kAWS, 62), A,
                   requirements(A, "[{key: " + key + ", operator: In, values: [test]}]"),
                   Runtime::Valid));
  }
  auto capacity = [&](const std::string& values) {
    return requirements(
        A, "[{key: karpenter.sh/capacity-type, operator: In, values: " + values + "}]");
  };
  auto tenancy = [&](const std::string& values) {
    return requirements(
        A, "[{key: karpenter.k8s.aws/instance-tenancy, operator: In, values: " + values + "}]");
  };
  c.push_back(
      ok("only invalid capacity types", src(kAWS, 72), A, capacity("[xspot]"), Runtime::Invalid));
  c.push_back(ok("valid capacity type", src(kAWS, 84), A, capacity("[on-demand]"), Runtime::Valid));
  c.push_back(ok("valid and invalid capacity types", src(kAWS, 96), A,
                 capacity("[on-demand, xspot]"), Runtime::Valid));
  c.push_back(
      ok("only invalid tenancies", src(kAWS, 109), A, tenancy("[xdedicated]"), Runtime::Invalid));
  c.push_back(ok("valid tenancy", src(kAWS, 121), A, tenancy("[default]"), Runtime::Valid));
  c.push_back(ok("valid and invalid tenancies", src(kAWS, 133), A, tenancy("[default, xdedicated]"),
                 Runtime::Valid));
  keys.push_back("karpenter.sh/capacity-type");
  keys.push_back("karpenter.k8s.aws/instance-tenancy");
  for (const std::string& key : keys) {
    c.push_back(ok("AWS well-known label " + key, src(kAWS, 150), A,
                   "spec:\n  template:\n    metadata:\n      labels: {" + key + ": test}\n",
                   Runtime::Valid));
  }
}

std::vector<Case> allCases() {
  std::vector<Case> c;
  addDisruptionCases(c);
  addTaintCases(c, Kind::NodePool, kNP);
  addRequirementCases(c, Kind::NodePool, kNP);
  addLabelCases(c);
  addDurationCases(c, Kind::NodePool, kNP);
  addNodeClassRefCases(c);
  addTaintCases(c, Kind::NodeClaim, kNC);
  addRequirementCases(c, Kind::NodeClaim, kNC);
  addDurationCases(c, Kind::NodeClaim, kNC);
  addAwsCases(c);
  return c;
}

Json parseYaml(const std::string& yaml) {
  if (yaml.empty()) {
    return Json::object();
  }
  auto docs = api::parseDocuments(yaml);
  if (!docs || docs->size() != 1) {
    ADD_FAILURE() << "bad YAML in a row: " << yaml;
    return Json::object();
  }
  return docs->front().value;
}

Json baseManifest(Kind kind, const std::string& name) {
  Json ref = {{"group", "karpenter.test.sh"}, {"kind", "TestNodeClass"}, {"name", "default"}};
  if (kind == Kind::AwsNodePool) {
    ref = {{"group", "karpenter.k8s.aws"}, {"kind", "EC2NodeClass"}, {"name", "default"}};
  }
  Json spec = {{"nodeClassRef", ref},
               {"requirements",
                Json::array({{{"key", "karpenter.sh/capacity-type"}, {"operator", "Exists"}}})}};
  if (kind == Kind::NodeClaim) {
    return {{"apiVersion", "karpenter.sh/v1"},
            {"kind", "NodeClaim"},
            {"metadata", {{"name", name}}},
            {"spec", spec}};
  }
  return {{"apiVersion", "karpenter.sh/v1"},
          {"kind", "NodePool"},
          {"metadata", {{"name", name}}},
          {"spec", {{"template", {{"spec", spec}}}}}};
}

Json merged(const Json& base, const std::string& yaml) {
  auto out = patch::applyMergePatch(base, parseYaml(yaml));
  return out ? *out : base;
}

std::string collection(Kind kind) {
  return kind == Kind::NodeClaim ? "/apis/karpenter.sh/v1/nodeclaims"
                                 : "/apis/karpenter.sh/v1/nodepools";
}

// What runtime validation says of the manifest, as the NodePool controller would read it.
bool runtimeValid(const Json& manifest, std::string& detail) {
  api::DecodedObject decoded = api::decodeObject(manifest, api::builtinRegistry());
  const auto* pool = decoded.object ? decoded.object->as<api::karpenter::NodePool>() : nullptr;
  if (pool == nullptr) {
    detail = "not decodable as a NodePool";
    return false;
  }
  std::vector<std::string> errors = api::karpenter::runtimeValidate(*pool);
  for (const std::string& e : errors) {
    detail += e + "; ";
  }
  return errors.empty();
}

class KarpenterCoreParityTest : public ::testing::Test {
 protected:
  // One server for the whole suite: every row uses its own object name.
  static void SetUpTestSuite() { server_ = new testing::TestApiServer(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  static testing::TestApiServer* server_;
};

testing::TestApiServer* KarpenterCoreParityTest::server_ = nullptr;

// Runs one row; returns what differs from upstream, or "".
std::string runCase(http::Client& client, const Case& c, const std::string& name) {
  Json manifest = merged(baseManifest(c.kind, name), c.yaml);
  const std::string target = collection(c.kind) + "/" + name;
  auto created = client.send("POST", collection(c.kind), api::dumpJson(manifest));
  if (!created) {
    return "POST failed: " + created.error().message();
  }
  std::string mismatch;
  if (!c.update.empty()) {
    if (created->status != 201) {
      return "setup create answered " + std::to_string(created->status) + ": " + created->body;
    }
    Json stored = Json::parse(created->body);
    Json next = merged(stored, c.update);
    auto updated = client.send("PUT", target, api::dumpJson(next));
    if (!updated) {
      return "PUT failed: " + updated.error().message();
    }
    if (c.accept && updated->status != 200) {
      return "update answered " + std::to_string(updated->status) + ": " + updated->body;
    }
    if (!c.accept) {
      if (updated->status != 422) {
        return "update answered " + std::to_string(updated->status) + ", want 422";
      }
      if (updated->body.find(c.path) == std::string::npos) {
        return "422 does not name " + c.path + ": " + updated->body;
      }
      auto after = client.send("GET", target);
      if (!after || Json::parse(after->body)["spec"] != stored["spec"]) {
        return "rejected update changed the stored spec";
      }
    }
    return "";
  }
  if (c.accept && created->status != 201) {
    mismatch = "answered " + std::to_string(created->status) + ", want 201: " + created->body;
  } else if (!c.accept) {
    if (created->status != 422) {
      mismatch = "answered " + std::to_string(created->status) + ", want 422";
    } else if (created->body.find(c.path) == std::string::npos) {
      mismatch = "422 does not name " + c.path + ": " + created->body;
    } else if (auto after = client.send("GET", target); !after || after->status != 404) {
      mismatch = "rejected object was stored";
    }
  }
  if (mismatch.empty() && c.runtime != Runtime::Unchecked) {
    std::string detail;
    bool valid = runtimeValid(manifest, detail);
    if (valid != (c.runtime == Runtime::Valid)) {
      mismatch = std::string("runtime validation ") + (valid ? "passed" : "failed") +
                 ", upstream's " + (valid ? "fails" : "passes") + ": " + detail;
    }
  }
  return mismatch;
}

TEST_F(KarpenterCoreParityTest, AdmitsAndRejectsAsKarpenter) {
  auto client = server_->client();
  const std::vector<Case> cases = allCases();
  int mismatches = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    std::string problem = runCase(*client, c, "parity-" + std::to_string(i));
    if (!problem.empty()) {
      ++mismatches;
      ADD_FAILURE() << c.source << " (" << c.name << "): " << problem;
    }
  }
  std::cout << "parity cases=" << cases.size() << " mismatches=" << mismatches << std::endl;
  EXPECT_GE(cases.size(), 250u);
  EXPECT_EQ(mismatches, 0);
}

// A rejection names the field path as kube-apiserver does, with the CEL rule's message.
TEST_F(KarpenterCoreParityTest, RejectionsUseKubeApiserverWording) {
  auto client = server_->client();
  Json pool =
      merged(baseManifest(Kind::NodePool, "wording"),
             requirements(Kind::NodePool, "[{key: topology.kubernetes.io/zone, operator: In}]"));
  auto answer = client->send("POST", collection(Kind::NodePool), api::dumpJson(pool));
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 422);
  EXPECT_NE(answer->body.find("spec.template.spec.requirements: Invalid value: \\\"array\\\": "
                              "requirements with operator 'In' must have a value defined"),
            std::string::npos)
      << answer->body;
}

}  // namespace
}  // namespace nodewright::apiserver
