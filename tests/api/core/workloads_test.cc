#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "api/core/apps.h"
#include "api/core/core_test_util.h"
#include "api/core/policy.h"

namespace nodewright::api::corev1 {
namespace {

using testing::at;
using testing::comparable;
using testing::decode;
using testing::parseYaml;
using testing::roundTrip;
using testing::validationErrors;
using Strings = std::vector<std::string>;

constexpr std::string_view kDeployment = R"(
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  generation: 4
  labels: {app: web}
  annotations:
    deployment.kubernetes.io/revision: "3"
spec:
  replicas: 6
  selector:
    matchLabels: {app: web}
    matchExpressions:
    - {key: track, operator: NotIn, values: [canary]}
  template:
    metadata:
      labels: {app: web, track: stable}
      annotations:
        kubectl.kubernetes.io/restartedAt: "2024-04-30T09:00:00Z"
    spec:
      nodeSelector: {karpenter.sh/capacity-type: spot}
      tolerations:
      - {key: dedicated, operator: Equal, value: web, effect: NoSchedule}
      containers:
      - name: web
        image: registry.example.com/web:1.4.2
        ports: [{containerPort: 8080}]
        resources:
          requests: {cpu: 250m, memory: 256Mi}
      dnsPolicy: ClusterFirst
      restartPolicy: Always
  strategy:
    type: RollingUpdate
    rollingUpdate: {maxUnavailable: 0, maxSurge: 25%}
  minReadySeconds: 5
  revisionHistoryLimit: 10
  progressDeadlineSeconds: 600
status:
  observedGeneration: 4
  replicas: 6
  updatedReplicas: 6
  readyReplicas: 5
  availableReplicas: 5
  unavailableReplicas: 1
  terminatingReplicas: 1
  conditions:
  - type: Available
    status: "True"
    lastUpdateTime: "2024-05-01T10:01:00Z"
    lastTransitionTime: "2024-05-01T10:01:00Z"
    reason: MinimumReplicasAvailable
    message: Deployment has minimum availability.
  - type: Progressing
    status: "True"
    lastUpdateTime: "2024-05-01T10:02:00Z"
    lastTransitionTime: "2024-04-20T08:00:00Z"
    reason: NewReplicaSetAvailable
    message: ReplicaSet "web-7d4b9c8f5" has successfully progressed.
)";

constexpr std::string_view kReplicaSet = R"(
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web-7d4b9c8f5
  namespace: shop
  labels: {app: web, pod-template-hash: 7d4b9c8f5}
  ownerReferences:
  - {apiVersion: apps/v1, kind: Deployment, name: web, uid: u-1, controller: true,
     blockOwnerDeletion: true}
spec:
  replicas: 6
  minReadySeconds: 5
  selector:
    matchLabels: {app: web, pod-template-hash: 7d4b9c8f5}
  template:
    metadata:
      labels: {app: web, pod-template-hash: 7d4b9c8f5}
    spec:
      containers:
      - {name: web, image: "registry.example.com/web:1.4.2", terminationMessagePolicy: File}
status:
  replicas: 6
  fullyLabeledReplicas: 6
  readyReplicas: 5
  availableReplicas: 5
  observedGeneration: 2
  terminatingReplicas: 0
)";

constexpr std::string_view kDaemonSet = R"(
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: node-exporter
  namespace: monitoring
spec:
  selector:
    matchLabels: {app.kubernetes.io/name: node-exporter}
  template:
    metadata:
      labels: {app.kubernetes.io/name: node-exporter}
    spec:
      hostNetwork: true
      tolerations:
      - {operator: Exists}
      priorityClassName: system-node-critical
      containers:
      - name: node-exporter
        image: quay.io/prometheus/node-exporter:v1.8.0
        args: [--path.rootfs=/host]
        resources:
          limits: {memory: 180Mi}
          requests: {cpu: 102m, memory: 180Mi}
  updateStrategy:
    type: RollingUpdate
    rollingUpdate: {maxUnavailable: 10%, maxSurge: 0}
  revisionHistoryLimit: 10
status:
  currentNumberScheduled: 3
  desiredNumberScheduled: 3
  numberReady: 3
  numberAvailable: 3
  updatedNumberScheduled: 3
  observedGeneration: 1
)";

constexpr std::string_view kPdb = R"(
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
  namespace: shop
spec:
  maxUnavailable: 20%
  selector:
    matchLabels: {app: web}
  unhealthyPodEvictionPolicy: AlwaysAllow
status:
  observedGeneration: 1
  disruptionsAllowed: 1
  currentHealthy: 6
  desiredHealthy: 5
  expectedPods: 6
  disruptedPods:
    web-7d4b9c8f5-x2kqp: "2024-05-01T11:00:00Z"
  conditions:
  - type: DisruptionAllowed
    status: "True"
    observedGeneration: 1
    lastTransitionTime: "2024-05-01T10:00:00Z"
    reason: SufficientPods
    message: ""
)";

struct RoundTripCase {
  std::string name;
  std::string_view manifest;
  std::vector<std::string> unknownPointers;  // fields the model does not know, kept verbatim
};

void PrintTo(const RoundTripCase& c, std::ostream* os) {
  *os << c.name;
}

class WorkloadRoundTripTest : public ::testing::TestWithParam<RoundTripCase> {};

TEST_P(WorkloadRoundTripTest, DecodeEncodeKeepsEveryField) {
  Json input = parseYaml(GetParam().manifest);
  Json output = roundTrip(input);
  nlohmann::json expected = comparable(input);
  // Zero counters and empty strings are omitted on encode, as omitempty does upstream.
  if (GetParam().name == "PodDisruptionBudget") {
    expected["status"]["conditions"][0].erase("message");
  }
  if (GetParam().name == "ReplicaSet") {
    EXPECT_EQ(at(output, "/status/terminatingReplicas"), Json(0));
  }
  EXPECT_EQ(comparable(output), expected);
  for (const std::string& pointer : GetParam().unknownPointers) {
    EXPECT_EQ(at(output, pointer), at(input, pointer)) << pointer;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, WorkloadRoundTripTest,
    ::testing::Values(
        RoundTripCase{"Deployment",
                      kDeployment,
                      {"/spec/template/spec/dnsPolicy", "/spec/template/spec/containers/0/ports",
                       "/status/terminatingReplicas"}},
        RoundTripCase{"ReplicaSet",
                      kReplicaSet,
                      {"/spec/template/spec/containers/0/terminationMessagePolicy"}},
        RoundTripCase{"DaemonSet",
                      kDaemonSet,
                      {"/spec/template/spec/hostNetwork", "/spec/template/spec/containers/0/args"}},
        RoundTripCase{"PodDisruptionBudget", kPdb, {}}),
    [](const auto& info) { return info.param.name; });

TEST(DeploymentTest, ModelledFieldsAreTyped) {
  auto decoded = decode(parseYaml(kDeployment));
  const Deployment* d = decoded.object->as<Deployment>();
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->spec.replicas, 6);
  EXPECT_TRUE(matches(*d->spec.selector, d->spec.template_.metadata.labels));
  EXPECT_EQ(d->spec.strategy.rollingUpdate->maxSurge, IntOrString::ofString("25%"));
  EXPECT_EQ(d->spec.template_.spec.containers[0].resources.requests.at("cpu").milliValue(), 250);
  EXPECT_EQ(d->status.readyReplicas, 5);
  EXPECT_EQ(d->status.conditions[1].lastUpdateTime.toString(), "2024-05-01T10:02:00Z");
}

TEST(WorkloadDefaultsTest, DeploymentGetsUpstreamDefaults) {
  auto decoded = decode(parseYaml(R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec: {containers: [{name: d, image: d, resources: {limits: {cpu: "1"}}}]}
)"),
                        /*defaults=*/true);
  ASSERT_TRUE(decoded.errors.empty()) << testing::errorStrings(decoded.errors)[0];
  const Deployment* d = decoded.object->as<Deployment>();
  EXPECT_EQ(d->spec.replicas, 1);
  EXPECT_EQ(d->spec.strategy.type, "RollingUpdate");
  EXPECT_EQ(d->spec.strategy.rollingUpdate->maxUnavailable, IntOrString::ofString("25%"));
  EXPECT_EQ(d->spec.strategy.rollingUpdate->maxSurge, IntOrString::ofString("25%"));
  EXPECT_EQ(d->spec.revisionHistoryLimit, 10);
  EXPECT_EQ(d->spec.progressDeadlineSeconds, 600);
  EXPECT_EQ(d->spec.template_.spec.schedulerName, "default-scheduler");
  // Requests are defaulted from limits for Pods only, not for templates.
  EXPECT_TRUE(d->spec.template_.spec.containers[0].resources.requests.empty());
}

TEST(WorkloadDefaultsTest, RecreateGetsNoRollingUpdate) {
  auto decoded = decode(parseYaml(R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  selector: {matchLabels: {app: d}}
  strategy: {type: Recreate}
  template:
    metadata: {labels: {app: d}}
    spec: {containers: [{name: d, image: d}]}
)"),
                        /*defaults=*/true);
  ASSERT_TRUE(decoded.errors.empty()) << testing::errorStrings(decoded.errors)[0];
  EXPECT_FALSE(decoded.object->as<Deployment>()->spec.strategy.rollingUpdate);
}

TEST(WorkloadDefaultsTest, ReplicaSetAndDaemonSetGetUpstreamDefaults) {
  auto rs = decode(parseYaml(R"(
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: r}
spec:
  selector: {matchLabels: {app: r}}
  template: {metadata: {labels: {app: r}}, spec: {containers: [{name: r, image: r}]}}
)"),
                   /*defaults=*/true);
  ASSERT_TRUE(rs.errors.empty());
  EXPECT_EQ(rs.object->as<ReplicaSet>()->spec.replicas, 1);

  auto ds = decode(parseYaml(R"(
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: d}
spec:
  selector: {matchLabels: {app: d}}
  template: {metadata: {labels: {app: d}}, spec: {containers: [{name: d, image: d}]}}
)"),
                   /*defaults=*/true);
  ASSERT_TRUE(ds.errors.empty());
  const DaemonSetUpdateStrategy& st = ds.object->as<DaemonSet>()->spec.updateStrategy;
  EXPECT_EQ(st.type, "RollingUpdate");
  EXPECT_EQ(st.rollingUpdate->maxUnavailable, IntOrString::ofInt(1));
  EXPECT_EQ(st.rollingUpdate->maxSurge, IntOrString::ofInt(0));
}

struct InvalidWorkloadCase {
  std::string name;
  std::string manifest;
  Strings errors;
};

void PrintTo(const InvalidWorkloadCase& c, std::ostream* os) {
  *os << c.name;
}

class WorkloadValidationTest : public ::testing::TestWithParam<InvalidWorkloadCase> {};

TEST_P(WorkloadValidationTest, ReportsEveryErrorWithItsPath) {
  EXPECT_EQ(validationErrors(GetParam().manifest), GetParam().errors);
}

std::string deployment(std::string_view spec) {
  return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n"
         "  template:\n    metadata: {labels: {app: d}}\n"
         "    spec: {containers: [{name: d, image: d}]}\n" +
         std::string(spec);
}

std::string pdb(std::string_view spec) {
  return "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: p}\nspec:\n"
         "  selector: {matchLabels: {app: d}}\n" +
         std::string(spec);
}

INSTANTIATE_TEST_SUITE_P(
    Workloads, WorkloadValidationTest,
    ::testing::Values(
        InvalidWorkloadCase{
            "ValidDeployment", deployment("  selector: {matchLabels: {app: d}}\n"), {}},
        InvalidWorkloadCase{
            "DeploymentWithoutSelector", deployment(""), {"spec.selector: Required value"}},
        InvalidWorkloadCase{"EmptySelector",
                            deployment("  selector: {matchLabels: {}}\n"),
                            {"spec.selector: Invalid value: {}: empty selector is invalid for "
                             "deployment"}},
        InvalidWorkloadCase{"SelectorDoesNotMatchTemplate",
                            deployment("  selector: {matchLabels: {app: e}}\n"),
                            {"spec.template.metadata.labels: Invalid value: {\"app\":\"d\"}: "
                             "`selector` does not match template `labels`"}},
        InvalidWorkloadCase{"NegativeReplicas",
                            deployment("  replicas: -1\n  selector: {matchLabels: {app: d}}\n"),
                            {"spec.replicas: Invalid value: -1: must be greater than or equal "
                             "to 0"}},
        InvalidWorkloadCase{
            "RecreateWithRollingUpdate",
            deployment("  selector: {matchLabels: {app: d}}\n"
                       "  strategy: {type: Recreate, rollingUpdate: {maxSurge: 1}}\n"),
            {"spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy "
             "`type` is 'Recreate'"}},
        InvalidWorkloadCase{
            "UnknownStrategy",
            deployment("  selector: {matchLabels: {app: d}}\n  strategy: {type: BlueGreen}\n"),
            {"spec.strategy.type: Unsupported value: \"BlueGreen\": supported values: "
             "\"Recreate\", \"RollingUpdate\""}},
        InvalidWorkloadCase{
            "RolloutCannotProgress",
            deployment("  selector: {matchLabels: {app: d}}\n"
                       "  strategy: {rollingUpdate: {maxUnavailable: 0%, maxSurge: 0}}\n"),
            {"spec.strategy.rollingUpdate.maxUnavailable: Invalid value: \"0%\": may not be 0 "
             "when `maxSurge` is 0"}},
        InvalidWorkloadCase{
            "BadPercents",
            deployment("  selector: {matchLabels: {app: d}}\n"
                       "  strategy: {rollingUpdate: {maxUnavailable: 150%, maxSurge: half}}\n"),
            {"spec.strategy.rollingUpdate.maxUnavailable: Invalid value: \"150%\": must not be "
             "greater than 100%",
             "spec.strategy.rollingUpdate.maxSurge: Invalid value: \"half\": a valid percent "
             "string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', "
             "regex used for validation is '[0-9]+%')"}},
        InvalidWorkloadCase{
            "ProgressDeadlineNotAfterMinReady",
            deployment("  selector: {matchLabels: {app: d}}\n  minReadySeconds: 30\n"
                       "  progressDeadlineSeconds: 30\n"),
            {"spec.progressDeadlineSeconds: Invalid value: 30: must be greater than "
             "minReadySeconds"}},
        InvalidWorkloadCase{
            "TemplateContainerInvalid",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n"
            "  selector: {matchLabels: {app: d}}\n  template:\n"
            "    metadata: {labels: {app: d}}\n    spec: {containers: [{name: d}]}\n",
            {"spec.template.spec.containers[0].image: Required value"}},
        InvalidWorkloadCase{
            "ReplicaSetSelectorMismatch",
            "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: r}\nspec:\n"
            "  selector: {matchExpressions: [{key: app, operator: In, values: [x]}]}\n"
            "  template:\n    metadata: {labels: {app: r}}\n"
            "    spec: {containers: [{name: r, image: r}]}\n",
            {"spec.template.metadata.labels: Invalid value: {\"app\":\"r\"}: `selector` does "
             "not match template `labels`"}},
        InvalidWorkloadCase{
            "DaemonSetSurgeAndUnavailable",
            "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d}\nspec:\n"
            "  selector: {matchLabels: {app: d}}\n"
            "  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 1, "
            "maxSurge: 1}}\n"
            "  template:\n    metadata: {labels: {app: d}}\n"
            "    spec: {containers: [{name: d, image: d}]}\n",
            {"spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when "
             "maxUnavailable is non-zero"}},
        InvalidWorkloadCase{
            "DaemonSetUnknownStrategy",
            "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d}\nspec:\n"
            "  selector: {matchLabels: {app: d}}\n  updateStrategy: {type: Recreate}\n"
            "  template:\n    metadata: {labels: {app: d}}\n"
            "    spec: {containers: [{name: d, image: d}]}\n",
            {"spec.updateStrategy.type: Unsupported value: \"Recreate\": supported values: "
             "\"RollingUpdate\", \"OnDelete\""}},
        InvalidWorkloadCase{"ValidPdb", pdb("  minAvailable: 2\n"), {}},
        InvalidWorkloadCase{"PdbWithNeitherBound", pdb(""), {}},
        InvalidWorkloadCase{"PdbWithBothBounds",
                            pdb("  minAvailable: 2\n  maxUnavailable: 1\n"),
                            {"spec.minAvailable: Invalid value: 2: minAvailable and "
                             "maxUnavailable cannot be both set"}},
        InvalidWorkloadCase{
            "PdbBadPercentAndNegative",
            pdb("  minAvailable: \"50\"\n"),
            {"spec.minAvailable: Invalid value: \"50\": a valid percent string must be a numeric "
             "string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation "
             "is '[0-9]+%')"}},
        InvalidWorkloadCase{"PdbNegative",
                            pdb("  maxUnavailable: -1\n"),
                            {"spec.maxUnavailable: Invalid value: -1: must be greater than or "
                             "equal to 0"}},
        InvalidWorkloadCase{"PdbOver100Percent",
                            pdb("  maxUnavailable: 101%\n"),
                            {"spec.maxUnavailable: Invalid value: \"101%\": must not be greater "
                             "than 100%"}},
        InvalidWorkloadCase{
            "PdbEvictionPolicy",
            pdb("  minAvailable: 1\n  unhealthyPodEvictionPolicy: Never\n"),
            {"spec.unhealthyPodEvictionPolicy: Unsupported value: \"Never\": supported values: "
             "\"IfHealthyBudget\", \"AlwaysAllow\""}},
        InvalidWorkloadCase{
            "PdbSelectorOperator",
            "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: p}\nspec:\n"
            "  minAvailable: 1\n  selector: {matchExpressions: [{key: app, operator: Is}]}\n",
            {"spec.selector.matchExpressions[0].operator: Invalid value: \"Is\": not a valid "
             "selector operator"}}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace nodewright::api::corev1
