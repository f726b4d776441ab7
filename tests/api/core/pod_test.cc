#include "api/core/pod.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "api/core/core_test_util.h"

namespace nodewright::api::corev1 {
namespace {

using testing::at;
using testing::comparable;
using testing::decode;
using testing::parseYaml;
using testing::roundTrip;
using testing::validationErrors;
using Strings = std::vector<std::string>;

// What `kubectl get pod -o yaml` shows for a scheduled pod of a Deployment, with scheduling
// constraints of every modelled kind and many fields nodewright does not model.
constexpr std::string_view kPod = R"(
apiVersion: v1
kind: Pod
metadata:
  name: web-7d4b9c8f5-x2kqp
  generateName: web-7d4b9c8f5-
  namespace: shop
  uid: 5f0c9a2e-8d1b-4c3e-9f6a-1b2c3d4e5f60
  resourceVersion: "48213"
  creationTimestamp: "2024-05-01T10:00:00Z"
  labels:
    app: web
    pod-template-hash: 7d4b9c8f5
  annotations:
    kubectl.kubernetes.io/restartedAt: "2024-04-30T09:00:00Z"
  ownerReferences:
  - apiVersion: apps/v1
    kind: ReplicaSet
    name: web-7d4b9c8f5
    uid: 0a1b2c3d-0000-4000-8000-000000000001
    controller: true
    blockOwnerDeletion: true
spec:
  nodeName: ip-10-0-1-23.ec2.internal
  nodeSelector:
    kubernetes.io/os: linux
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - key: karpenter.sh/capacity-type
            operator: In
            values: [spot, on-demand]
          - key: karpenter.k8s.aws/instance-cpu
            operator: Gt
            values: ["3"]
          matchFields:
          - key: metadata.name
            operator: NotIn
            values: [ip-10-0-9-9.ec2.internal]
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 50
        preference:
          matchExpressions:
          - key: topology.kubernetes.io/zone
            operator: In
            values: [us-east-1a]
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector:
          matchExpressions:
          - key: app
            operator: In
            values: [cache]
        namespaces: [shop]
        topologyKey: topology.kubernetes.io/zone
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm:
          labelSelector:
            matchLabels:
              app: web
          topologyKey: kubernetes.io/hostname
          matchLabelKeys: [pod-template-hash]
  tolerations:
  - key: node.kubernetes.io/not-ready
    operator: Exists
    effect: NoExecute
    tolerationSeconds: 300
  - key: dedicated
    operator: Equal
    value: web
    effect: NoSchedule
  topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: topology.kubernetes.io/zone
    whenUnsatisfiable: DoNotSchedule
    minDomains: 3
    nodeTaintsPolicy: Honor
    labelSelector:
      matchLabels:
        app: web
  initContainers:
  - name: migrate
    image: registry.example.com/web-migrate:1.4.2
    command: [/bin/migrate, --up]
    resources:
      requests:
        cpu: 100m
        memory: 64Mi
  - name: log-shipper
    image: registry.example.com/shipper:2.0
    restartPolicy: Always
    resources:
      requests:
        cpu: 50m
  containers:
  - name: web
    image: registry.example.com/web:1.4.2
    imagePullPolicy: IfNotPresent
    ports:
    - containerPort: 8080
      name: http
      protocol: TCP
    env:
    - name: LOG_LEVEL
      value: info
    resources:
      requests:
        cpu: 250m
        memory: 256Mi
      limits:
        cpu: "1"
        memory: 512Mi
        nvidia.com/gpu: "1"
      claims:
      - name: gpu
    readinessProbe:
      httpGet: {path: /healthz, port: 8080}
      periodSeconds: 10
    securityContext: {}
    terminationMessagePath: /dev/termination-log
    terminationMessagePolicy: File
    volumeMounts:
    - name: config
      mountPath: /etc/web
  overhead:
    cpu: 50m
  priority: 1000
  priorityClassName: web-critical
  schedulerName: default-scheduler
  terminationGracePeriodSeconds: 45
  volumes:
  - name: config
    configMap:
      name: web-config
      defaultMode: 420
  - name: kube-api-access-abcde
    projected:
      sources:
      - serviceAccountToken: {expirationSeconds: 3607, path: token}
  restartPolicy: Always
  dnsPolicy: ClusterFirst
  serviceAccountName: web
  enableServiceLinks: true
  preemptionPolicy: PreemptLowerPriority
  securityContext: {}
status:
  phase: Running
  conditions:
  - type: Ready
    status: "True"
    lastProbeTime: null
    lastTransitionTime: "2024-05-01T10:00:30Z"
  - type: PodScheduled
    status: "True"
    lastTransitionTime: "2024-05-01T10:00:01Z"
    observedGeneration: 1
  hostIP: 10.0.1.23
  hostIPs:
  - ip: 10.0.1.23
  podIP: 10.0.1.57
  podIPs:
  - ip: 10.0.1.57
  startTime: "2024-05-01T10:00:02Z"
  qosClass: Burstable
  containerStatuses:
  - name: web
    ready: true
    restartCount: 0
    image: registry.example.com/web:1.4.2
    imageID: registry.example.com/web@sha256:0123
    containerID: containerd://abc
    started: true
    state:
      running:
        startedAt: "2024-05-01T10:00:20Z"
)";

TEST(PodRoundTripTest, DecodeEncodeKeepsEveryField) {
  Json input = parseYaml(kPod);
  Json output = roundTrip(input);
  EXPECT_EQ(comparable(output), comparable(input));
}

TEST(PodRoundTripTest, UnknownFieldsSurviveVerbatim) {
  Json input = parseYaml(kPod);
  Json output = roundTrip(input);
  for (const char* pointer :
       {"/spec/containers/0/ports", "/spec/containers/0/readinessProbe",
        "/spec/containers/0/securityContext", "/spec/containers/0/resources/claims",
        "/spec/initContainers/0/command", "/spec/securityContext", "/spec/dnsPolicy",
        "/spec/volumes", "/status/containerStatuses", "/status/podIPs",
        "/status/conditions/1/observedGeneration"}) {
    EXPECT_EQ(at(output, pointer), at(input, pointer)) << pointer;
  }
}

TEST(PodRoundTripTest, ModelledFieldsAreTyped) {
  auto decoded = decode(parseYaml(kPod));
  ASSERT_TRUE(decoded.object);
  const Pod* pod = decoded.object->as<Pod>();
  ASSERT_NE(pod, nullptr);
  EXPECT_EQ(pod->spec.nodeName, "ip-10-0-1-23.ec2.internal");
  ASSERT_TRUE(pod->spec.affinity && pod->spec.affinity->nodeAffinity);
  const NodeSelector& required =
      *pod->spec.affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution;
  EXPECT_TRUE(matches(
      required, {{"karpenter.sh/capacity-type", "spot"}, {"karpenter.k8s.aws/instance-cpu", "4"}},
      "ip-10-0-1-24.ec2.internal"));
  EXPECT_FALSE(matches(
      required, {{"karpenter.sh/capacity-type", "spot"}, {"karpenter.k8s.aws/instance-cpu", "4"}},
      "ip-10-0-9-9.ec2.internal"));
  EXPECT_EQ(pod->spec.containers[0].resources.limits.at("memory").toString(), "512Mi");
  EXPECT_EQ(pod->spec.initContainers[1].restartPolicy, "Always");
  EXPECT_EQ(pod->spec.tolerations[0].tolerationSeconds, 300);
  EXPECT_EQ(pod->spec.priority, 1000);
  EXPECT_EQ(pod->status.phase, "Running");
  ASSERT_NE(findCondition(pod->status, "Ready"), nullptr);
  EXPECT_EQ(findCondition(pod->status, "Ready")->status, "True");
  EXPECT_EQ(findCondition(pod->status, "Initialized"), nullptr);
}

TEST(PodDefaultsTest, RequestsFollowLimitsAndSchedulerIsDefaulted) {
  auto decoded = decode(parseYaml(R"(
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: app
    image: app:1
    resources:
      requests: {cpu: 100m}
      limits: {cpu: 500m, memory: 1Gi}
)"),
                        /*defaults=*/true);
  ASSERT_TRUE(decoded.errors.empty());
  const Pod* pod = decoded.object->as<Pod>();
  const ResourceRequirements& r = pod->spec.containers[0].resources;
  EXPECT_EQ(r.requests.at("cpu").toString(), "100m");
  EXPECT_EQ(r.requests.at("memory").toString(), "1Gi");
  EXPECT_EQ(pod->spec.schedulerName, "default-scheduler");
  EXPECT_EQ(pod->spec.terminationGracePeriodSeconds, 30);
}

// One invalid manifest: a mutation of a small valid pod and every error it must produce.
struct InvalidPodCase {
  std::string name;
  std::string spec;  // YAML under spec:
  Strings errors;
};

void PrintTo(const InvalidPodCase& c, std::ostream* os) {
  *os << c.name;
}

class PodValidationTest : public ::testing::TestWithParam<InvalidPodCase> {};

TEST_P(PodValidationTest, ReportsEveryErrorWithItsPath) {
  std::string yaml =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: shop}\nspec:\n" + GetParam().spec;
  EXPECT_EQ(validationErrors(yaml), GetParam().errors);
}

constexpr std::string_view kContainer = "  containers: [{name: app, image: app:1}]\n";

std::string withContainer(std::string_view rest) {
  return std::string(kContainer) + std::string(rest);
}

INSTANTIATE_TEST_SUITE_P(
    Pods, PodValidationTest,
    ::testing::Values(
        InvalidPodCase{"Valid", withContainer(""), {}},
        InvalidPodCase{"NoContainers", "  nodeName: n1\n", {"spec.containers: Required value"}},
        InvalidPodCase{"ContainerWithoutName",
                       "  containers: [{image: app:1}]\n",
                       {"spec.containers[0].name: Required value"}},
        InvalidPodCase{"ContainerWithoutImage",
                       "  containers: [{name: app}]\n",
                       {"spec.containers[0].image: Required value"}},
        InvalidPodCase{
            "ContainerNameNotADnsLabel",
            "  containers: [{name: App_1, image: app:1}]\n",
            {"spec.containers[0].name: Invalid value: \"App_1\": a lowercase RFC 1123 label "
             "must consist of lower case alphanumeric characters or '-', and must start and end "
             "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
             "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"}},
        InvalidPodCase{"DuplicateNameAcrossInitAndApp",
                       withContainer("  initContainers: [{name: app, image: init:1}]\n"),
                       {"spec.containers[0].name: Duplicate value: \"app\""}},
        InvalidPodCase{
            "RequestAboveLimit",
            "  containers:\n  - name: app\n    image: app:1\n    resources:\n"
            "      requests: {cpu: \"2\"}\n      limits: {cpu: 1500m}\n",
            {"spec.containers[0].resources.requests[cpu]: Invalid value: \"2\": must be less "
             "than or equal to cpu limit of 1500m"}},
        InvalidPodCase{"NegativeRequest",
                       "  containers:\n  - name: app\n    image: app:1\n    resources:\n"
                       "      requests: {memory: -1Gi}\n",
                       {"spec.containers[0].resources.requests[memory]: Invalid value: \"-1Gi\": "
                        "must be greater than or equal to 0"}},
        InvalidPodCase{"MalformedQuantity",
                       "  containers:\n  - name: app\n    image: app:1\n    resources:\n"
                       "      limits: {cpu: one}\n",
                       {"spec.containers[0].resources.limits[cpu]: Invalid value: \"one\": "
                        "quantities must match the regular expression "
                        "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"}},
        InvalidPodCase{"TolerationOperatorIn",
                       withContainer("  tolerations: [{key: a, operator: In, value: b}]\n"),
                       {"spec.tolerations[0].operator: Unsupported value: \"In\": supported "
                        "values: \"Equal\", \"Exists\""}},
        InvalidPodCase{"TolerationExistsWithValue",
                       withContainer("  tolerations: [{key: a, operator: Exists, value: b}]\n"),
                       {"spec.tolerations[0].operator: Invalid value: \"Exists\": value must be "
                        "empty when `operator` is 'Exists'"}},
        InvalidPodCase{"NodeAffinityInWithoutValues",
                       withContainer("  affinity:\n    nodeAffinity:\n"
                                     "      requiredDuringSchedulingIgnoredDuringExecution:\n"
                                     "        nodeSelectorTerms:\n"
                                     "        - matchExpressions: [{key: zone, operator: In}]\n"),
                       {"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
                        "nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be "
                        "specified when `operator` is 'In' or 'NotIn'"}},
        InvalidPodCase{
            "NodeAffinityUnknownOperator",
            withContainer("  affinity:\n    nodeAffinity:\n"
                          "      preferredDuringSchedulingIgnoredDuringExecution:\n"
                          "      - weight: 101\n        preference:\n"
                          "          matchExpressions: [{key: zone, operator: Near}]\n"),
            {"spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]."
             "weight: Invalid value: 101: must be less than or equal to 100",
             "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]."
             "preference.matchExpressions[0].operator: Invalid value: \"Near\": not a valid "
             "selector operator"}},
        InvalidPodCase{
            "NoNodeSelectorTerms",
            withContainer("  affinity:\n    nodeAffinity:\n"
                          "      requiredDuringSchedulingIgnoredDuringExecution: {}\n"),
            {"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
             "nodeSelectorTerms: Required value: must have at least one node selector term"}},
        InvalidPodCase{
            "MatchFieldsOnOtherField",
            withContainer("  affinity:\n    nodeAffinity:\n"
                          "      requiredDuringSchedulingIgnoredDuringExecution:\n"
                          "        nodeSelectorTerms:\n"
                          "        - matchFields: [{key: spec.nodeName, operator: In, "
                          "values: [a, b]}]\n"),
            {"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
             "nodeSelectorTerms[0].matchFields[0].values: Required value: must be only one "
             "value when `operator` is 'In' or 'NotIn' for node field selector",
             "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
             "nodeSelectorTerms[0].matchFields[0].key: Invalid value: \"spec.nodeName\": not a "
             "valid field selector key"}},
        InvalidPodCase{
            "PodAffinityWithoutTopologyKey",
            withContainer("  affinity:\n    podAntiAffinity:\n"
                          "      requiredDuringSchedulingIgnoredDuringExecution:\n"
                          "      - labelSelector: {matchLabels: {app: web}}\n"),
            {"spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
             "topologyKey: Required value: can not be empty"}},
        InvalidPodCase{
            "PodAffinitySelectorOperator",
            withContainer("  affinity:\n    podAffinity:\n"
                          "      requiredDuringSchedulingIgnoredDuringExecution:\n"
                          "      - topologyKey: zone\n        labelSelector:\n"
                          "          matchExpressions: [{key: app, operator: Exists, "
                          "values: [web]}]\n"),
            {"spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
             "labelSelector.matchExpressions[0].values: Forbidden: may not be specified when "
             "`operator` is 'Exists' or 'DoesNotExist'"}},
        InvalidPodCase{
            "SpreadConstraintProblems",
            withContainer("  topologySpreadConstraints:\n"
                          "  - {maxSkew: 0, topologyKey: zone, whenUnsatisfiable: Maybe}\n"
                          "  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway,"
                          " minDomains: 2}\n"
                          "  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}"
                          "\n"),
            {"spec.topologySpreadConstraints[2]: Duplicate value: "
             "{\"topologyKey\":\"zone\",\"whenUnsatisfiable\":\"ScheduleAnyway\"}",
             "spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than "
             "or equal to 1",
             "spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: \"Maybe\": "
             "supported values: \"DoNotSchedule\", \"ScheduleAnyway\"",
             "spec.topologySpreadConstraints[1].minDomains: Invalid value: 2: can only use "
             "minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway"}},
        InvalidPodCase{
            "BadNodeSelectorKey",
            withContainer("  nodeSelector: {\"kubernetes.io/\": linux}\n"),
            {"spec.nodeSelector: Invalid value: \"kubernetes.io/\": name part must be non-empty",
             "spec.nodeSelector: Invalid value: \"kubernetes.io/\": name part must consist of "
             "alphanumeric characters, '-', '_' or '.', and must start and end with an "
             "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "
             "for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"}},
        InvalidPodCase{"WrongTypes",
                       withContainer("  priority: high\n  nodeSelector: [a]\n"),
                       {"spec.priority: Invalid value: \"high\": must be of type integer",
                        "spec.nodeSelector: Invalid value: [\"a\"]: must be of type object"}}),
    [](const auto& info) { return info.param.name; });

TEST(PodStatusValidationTest, PhaseAndConditionStatusAreEnums) {
  EXPECT_EQ(validationErrors(R"(
apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {containers: [{name: a, image: a}]}
status:
  phase: Sleeping
  conditions:
  - {type: Ready, status: Ok}
  - {type: Ready, status: "True"}
)"),
            (Strings{"status.conditions[1]: Duplicate value: {\"type\":\"Ready\"}",
                     "status.conditions[0].status: Unsupported value: \"Ok\": supported values: "
                     "\"True\", \"False\", \"Unknown\"",
                     "status.phase: Unsupported value: \"Sleeping\": supported values: "
                     "\"Pending\", \"Running\", \"Succeeded\", \"Failed\", \"Unknown\""}));
}

}  // namespace
}  // namespace nodewright::api::corev1
