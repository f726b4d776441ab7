// Invalid Cluster API manifests: each breaks one rule of the CAPI CRDs or webhooks and must be
// reported with the exact field path and message.
#include <gtest/gtest.h>

#include "api/capi/manifest_helpers.h"

namespace nodewright::api::capi {
namespace {

using testing::InvalidCase;

constexpr const char* kCluster = R"(
apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata:
  name: capz-demo
  namespace: default
spec:
  clusterNetwork:
    pods:
      cidrBlocks: [192.168.0.0/16]
  infrastructureRef:
    apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
    kind: AzureCluster
    name: capz-demo
)";

constexpr const char* kMachineDeployment = R"(
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachineDeployment
metadata:
  name: capz-demo-md-0
  namespace: default
spec:
  clusterName: capz-demo
  replicas: 3
  selector:
    matchLabels:
      nodepool: md-0
  template:
    metadata:
      labels:
        nodepool: md-0
    spec:
      clusterName: capz-demo
      bootstrap:
        configRef:
          apiVersion: bootstrap.cluster.x-k8s.io/v1beta1
          kind: KubeadmConfigTemplate
          name: capz-demo-md-0
      infrastructureRef:
        apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
        kind: AzureMachineTemplate
        name: capz-demo-md-0
      version: v1.30.2
)";

constexpr const char* kMachine = R"(
apiVersion: cluster.x-k8s.io/v1beta1
kind: Machine
metadata:
  name: capz-demo-md-0-x2kqp
  namespace: default
spec:
  clusterName: capz-demo
  bootstrap:
    dataSecretName: capz-demo-md-0-x2kqp
  infrastructureRef:
    apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
    kind: AzureMachine
    name: capz-demo-md-0-x2kqp
status:
  conditions:
  - type: Ready
    status: "True"
    lastTransitionTime: "2024-05-14T09:24:40Z"
  - type: InfrastructureReady
    status: "True"
    lastTransitionTime: "2024-05-14T09:22:10Z"
)";

constexpr const char* kMachineSet = R"(
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachineSet
metadata:
  name: capz-demo-md-0-7d9c5
spec:
  clusterName: capz-demo
  replicas: 1
  template:
    spec:
      clusterName: capz-demo
      bootstrap:
        dataSecretName: bootstrap
      infrastructureRef:
        kind: AzureMachineTemplate
        name: capz-demo-md-0
)";

constexpr const char* kMachinePool = R"(
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata:
  name: capz-demo-mp-0
  namespace: default
spec:
  clusterName: capz-demo
  replicas: 2
  template:
    spec:
      clusterName: capz-demo
      bootstrap:
        configRef:
          apiVersion: bootstrap.cluster.x-k8s.io/v1beta1
          kind: KubeadmConfig
          name: capz-demo-mp-0
      infrastructureRef:
        apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
        kind: AzureMachinePool
        name: capz-demo-mp-0
      version: v1.30.2
)";

Json& rollingUpdate(Json& md) {
  return md["spec"]["strategy"]["rollingUpdate"];
}

class ClusterApiValidationTest : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(ClusterApiValidationTest, ReportsEveryErrorWithItsPath) {
  Json doc = testing::document(GetParam().base);
  GetParam().edit(doc);
  DecodedObject decoded = testing::decode(doc);
  EXPECT_EQ(testing::errorStrings(decoded.errors), GetParam().errors);
}

// Every base manifest is valid on its own.
TEST(ClusterApiValidationBaseTest, BaseManifestsAreValid) {
  for (const char* base : {kCluster, kMachineDeployment, kMachine, kMachineSet, kMachinePool}) {
    EXPECT_EQ(testing::errorStrings(testing::decode(testing::document(base)).errors),
              std::vector<std::string>{})
        << base;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Manifests, ClusterApiValidationTest,
    ::testing::Values(
        InvalidCase{"ClusterPodCidrOutOfRange",
                    kCluster,
                    [](Json& j) {
                      j["spec"]["clusterNetwork"]["pods"]["cidrBlocks"][0] = "192.168.0.0/33";
                    },
                    {"spec.clusterNetwork.pods.cidrBlocks[0]: Invalid value: \"192.168.0.0/33\": "
                     "invalid CIDR format"}},
        InvalidCase{"ClusterServicesWithoutCidrBlocks",
                    kCluster,
                    [](Json& j) { j["spec"]["clusterNetwork"]["services"] = Json::object(); },
                    {"spec.clusterNetwork.services.cidrBlocks: Required value"}},
        InvalidCase{"ClusterApiServerPortTooLarge",
                    kCluster,
                    [](Json& j) { j["spec"]["clusterNetwork"]["apiServerPort"] = 70000; },
                    {"spec.clusterNetwork.apiServerPort: Invalid value: 70000: must be less "
                     "than or equal to 65535"}},
        InvalidCase{"ClusterInfrastructureInOtherNamespace",
                    kCluster,
                    [](Json& j) { j["spec"]["infrastructureRef"]["namespace"] = "other"; },
                    {"spec.infrastructureRef.namespace: Invalid value: \"other\": must match "
                     "metadata.namespace"}},
        InvalidCase{"ClusterRepeatedConditionType",
                    kCluster,
                    [](Json& j) {
                      Json c = {{"type", "Ready"},
                                {"status", "True"},
                                {"lastTransitionTime", "2024-05-14T09:24:40Z"}};
                      j["status"]["conditions"] = Json::array({c, c});
                    },
                    {"status.conditions[1].type: Duplicate value: \"Ready\""}},
        InvalidCase{"MachineDeploymentNegativeReplicas",
                    kMachineDeployment,
                    [](Json& j) { j["spec"]["replicas"] = -1; },
                    {"spec.replicas: Invalid value: -1: must be greater than or equal to 0"}},
        InvalidCase{"MachineDeploymentUnknownStrategy",
                    kMachineDeployment,
                    [](Json& j) {
                      j["spec"]["strategy"] = Json{{"type", "Recreate"}};
                    },
                    {"spec.strategy.type: Unsupported value: \"Recreate\": supported values: "
                     "\"RollingUpdate\", \"OnDelete\""}},
        InvalidCase{"MachineDeploymentUnknownDeletePolicy",
                    kMachineDeployment,
                    [](Json& j) { rollingUpdate(j)["deletePolicy"] = "Largest"; },
                    {"spec.strategy.rollingUpdate.deletePolicy: Unsupported value: \"Largest\": "
                     "supported values: \"Random\", \"Newest\", \"Oldest\""}},
        InvalidCase{"MachineDeploymentNoSurgeAndNoUnavailability",
                    kMachineDeployment,
                    [](Json& j) {
                      rollingUpdate(j)["maxSurge"] = "0%";
                      rollingUpdate(j)["maxUnavailable"] = 0;
                    },
                    {"spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 "
                     "when `maxSurge` is 0"}},
        InvalidCase{"MachineDeploymentBoundsNotIntOrPercent",
                    kMachineDeployment,
                    [](Json& j) {
                      rollingUpdate(j)["maxSurge"] = "ten";
                      rollingUpdate(j)["maxUnavailable"] = "150%";
                    },
                    {"spec.strategy.rollingUpdate.maxSurge: Invalid value: \"ten\": must be "
                     "either an int or a percentage",
                     "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: \"150%\": must "
                     "not be greater than 100%"}},
        InvalidCase{"MachineDeploymentSelectorMissesTemplate",
                    kMachineDeployment,
                    [](Json& j) { j["spec"]["selector"]["matchLabels"]["nodepool"] = "md-1"; },
                    {"spec.template.metadata.labels: Forbidden: must match spec.selector "
                     "\"cluster.x-k8s.io/cluster-name=capz-demo,nodepool=md-1\""}},
        InvalidCase{"MachineDeploymentVersionNotSemver",
                    kMachineDeployment,
                    [](Json& j) { j["spec"]["template"]["spec"]["version"] = "1.30"; },
                    {"spec.template.spec.version: Invalid value: \"v1.30\": must be a valid "
                     "semantic version"}},
        InvalidCase{"MachineDeploymentTemplateWithoutClusterOrInfrastructure",
                    kMachineDeployment,
                    [](Json& j) {
                      j["spec"]["template"]["spec"].erase("clusterName");
                      j["spec"]["template"]["spec"].erase("infrastructureRef");
                    },
                    {"spec.template.spec.clusterName: Required value",
                     "spec.template.spec.infrastructureRef: Required value"}},
        InvalidCase{"MachineWithoutClusterNameOrInfrastructure",
                    kMachine,
                    [](Json& j) {
                      j["spec"].erase("clusterName");
                      j["spec"].erase("infrastructureRef");
                    },
                    {"spec.clusterName: Required value", "spec.infrastructureRef: Required value"}},
        InvalidCase{"MachineWithoutBootstrapData",
                    kMachine,
                    [](Json& j) { j["spec"]["bootstrap"] = Json::object(); },
                    {"spec.bootstrap.data: Required value: expected either "
                     "spec.bootstrap.dataSecretName or spec.bootstrap.configRef to be populated"}},
        InvalidCase{"MachineInfrastructureInOtherNamespace",
                    kMachine,
                    [](Json& j) { j["spec"]["infrastructureRef"]["namespace"] = "other"; },
                    {"spec.infrastructureRef.namespace: Invalid value: \"other\": must match "
                     "metadata.namespace"}},
        InvalidCase{"MachineMisspelledField",
                    kMachine,
                    [](Json& j) { j["spec"]["providerId"] = "azure:///x"; },
                    {"spec.providerId: field not declared in schema"}},
        InvalidCase{"MachineRepeatedConditionType",
                    kMachine,
                    [](Json& j) {
                      j["status"]["conditions"].push_back(
                          Json{{"type", "Ready"},
                               {"status", "False"},
                               {"severity", "Error"},
                               {"lastTransitionTime", "2024-05-14T09:30:00Z"}});
                    },
                    {"status.conditions[2].type: Duplicate value: \"Ready\""}},
        InvalidCase{"MachineConditionWithBadStatusAndSeverity",
                    kMachine,
                    [](Json& j) {
                      j["status"]["conditions"][0]["status"] = "Yes";
                      j["status"]["conditions"][0]["severity"] = "Critical";
                      j["status"]["conditions"][1].erase("lastTransitionTime");
                    },
                    {"status.conditions[0].status: Unsupported value: \"Yes\": supported values: "
                     "\"True\", \"False\", \"Unknown\"",
                     "status.conditions[0].severity: Unsupported value: \"Critical\": supported "
                     "values: \"Error\", \"Warning\", \"Info\", \"\"",
                     "status.conditions[1].lastTransitionTime: Required value"}},
        InvalidCase{"MachineSetUnknownDeletePolicy",
                    kMachineSet,
                    [](Json& j) { j["spec"]["deletePolicy"] = "Largest"; },
                    {"spec.deletePolicy: Unsupported value: \"Largest\": supported values: "
                     "\"Random\", \"Newest\", \"Oldest\""}},
        InvalidCase{"MachineDeploymentNameNotALabelValue",
                    kMachineDeployment,
                    [](Json& j) { j["metadata"]["name"] = "md." + std::string(61, 'a'); },
                    {"metadata.name: Invalid value: \"md." + std::string(61, 'a') +
                     "\": must be a valid label value: must be no more than 63 characters"}},
        InvalidCase{"MachinePoolNegativeReplicasWithoutBootstrap",
                    kMachinePool,
                    [](Json& j) {
                      j["spec"]["replicas"] = -2;
                      j["spec"]["template"]["spec"].erase("bootstrap");
                    },
                    {"spec.replicas: Invalid value: -2: must be greater than or equal to 0",
                     "spec.template.spec.bootstrap.data: Required value: expected either "
                     "spec.template.spec.bootstrap.dataSecretName or "
                     "spec.template.spec.bootstrap.configRef to be populated"}}),
    testing::caseName);

}  // namespace
}  // namespace nodewright::api::capi
