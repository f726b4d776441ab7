// Cluster API manifests as the CAPZ quickstart and the CAPI controllers write them decode
// through the builtin registry without errors, with the CAPI webhook defaults applied.
#include <gtest/gtest.h>

#include "api/capi/cluster.h"
#include "api/capi/machine.h"
#include "api/capi/machine_deployment.h"
#include "api/capi/machine_pool.h"
#include "api/capi/machine_set.h"
#include "api/capi/manifest_helpers.h"
#include "api/codec.h"

namespace nodewright::api::capi {
namespace {

using testing::decode;
using testing::decodeValid;
using testing::document;
using testing::documents;
using testing::errorStrings;

// The CAPI half of the CAPZ "default" flavor plus a machine pool, as clusterctl generates it.
constexpr const char* kClusterTemplate = R"(
apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata:
  name: capz-demo
  namespace: default
  labels:
    cni: calico
spec:
  clusterNetwork:
    apiServerPort: 6443
    pods:
      cidrBlocks:
      - 192.168.0.0/16
    services:
      cidrBlocks:
      - 10.96.0.0/12
      - fd00:10:96::/112
    serviceDomain: cluster.local
  controlPlaneRef:
    apiVersion: controlplane.cluster.x-k8s.io/v1beta1
    kind: KubeadmControlPlane
    name: capz-demo-control-plane
  infrastructureRef:
    apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
    kind: AzureCluster
    name: capz-demo
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachineDeployment
metadata:
  name: capz-demo-md-0
  namespace: default
  annotations:
    cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size: "2"
    cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size: "10"
spec:
  clusterName: capz-demo
  replicas: 3
  selector:
    matchLabels: null
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 25%
      maxUnavailable: 0
      deletePolicy: Oldest
  minReadySeconds: 30
  template:
    metadata:
      labels:
        nodepool: md-0
    spec:
      bootstrap:
        configRef:
          apiVersion: bootstrap.cluster.x-k8s.io/v1beta1
          kind: KubeadmConfigTemplate
          name: capz-demo-md-0
      clusterName: capz-demo
      infrastructureRef:
        apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
        kind: AzureMachineTemplate
        name: capz-demo-md-0
      version: v1.30.2
      failureDomain: "1"
      nodeDrainTimeout: 5m
      nodeVolumeDetachTimeout: 10m
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata:
  name: capz-demo-mp-0
  namespace: default
spec:
  clusterName: capz-demo
  replicas: 2
  failureDomains:
  - "1"
  - "2"
  template:
    spec:
      bootstrap:
        configRef:
          apiVersion: bootstrap.cluster.x-k8s.io/v1beta1
          kind: KubeadmConfig
          name: capz-demo-mp-0
      clusterName: capz-demo
      infrastructureRef:
        apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
        kind: AzureMachinePool
        name: capz-demo-mp-0
      version: v1.30.2
)";

// What the MachineDeployment controller creates from the template above, with status.
constexpr const char* kControllerObjects = R"(
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachineSet
metadata:
  name: capz-demo-md-0-7d9c5
  namespace: default
  labels:
    cluster.x-k8s.io/cluster-name: capz-demo
    cluster.x-k8s.io/deployment-name: capz-demo-md-0
    machine-template-hash: "3872216281"
  annotations:
    machinedeployment.clusters.x-k8s.io/desired-replicas: "3"
    machinedeployment.clusters.x-k8s.io/max-replicas: "4"
    machinedeployment.clusters.x-k8s.io/revision: "1"
  ownerReferences:
  - apiVersion: cluster.x-k8s.io/v1beta1
    kind: MachineDeployment
    name: capz-demo-md-0
    uid: 0b6a2cf6-6c5e-4c8e-8d0c-1f1f5c1f7c11
    controller: true
    blockOwnerDeletion: true
spec:
  clusterName: capz-demo
  replicas: 3
  deletePolicy: Oldest
  selector:
    matchLabels:
      cluster.x-k8s.io/cluster-name: capz-demo
      cluster.x-k8s.io/deployment-name: capz-demo-md-0
      machine-template-hash: "3872216281"
  template:
    metadata:
      labels:
        cluster.x-k8s.io/cluster-name: capz-demo
        cluster.x-k8s.io/deployment-name: capz-demo-md-0
        machine-template-hash: "3872216281"
    spec:
      bootstrap:
        configRef:
          apiVersion: bootstrap.cluster.x-k8s.io/v1beta1
          kind: KubeadmConfigTemplate
          name: capz-demo-md-0
      clusterName: capz-demo
      infrastructureRef:
        apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
        kind: AzureMachineTemplate
        name: capz-demo-md-0
      version: v1.30.2
status:
  selector: cluster.x-k8s.io/cluster-name=capz-demo,cluster.x-k8s.io/deployment-name=capz-demo-md-0
  replicas: 3
  fullyLabeledReplicas: 3
  readyReplicas: 2
  availableReplicas: 2
  observedGeneration: 1
  conditions:
  - type: Ready
    status: "False"
    severity: Warning
    reason: ScalingUp
    lastTransitionTime: "2024-05-14T09:20:11Z"
  - type: MachinesCreated
    status: "True"
    lastTransitionTime: "2024-05-14T09:18:02Z"
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: Machine
metadata:
  name: capz-demo-md-0-7d9c5-x2kqp
  namespace: default
  labels:
    cluster.x-k8s.io/cluster-name: capz-demo
    cluster.x-k8s.io/deployment-name: capz-demo-md-0
    cluster.x-k8s.io/set-name: capz-demo-md-0-7d9c5
  finalizers:
  - machine.cluster.x-k8s.io
spec:
  bootstrap:
    configRef:
      apiVersion: bootstrap.cluster.x-k8s.io/v1beta1
      kind: KubeadmConfig
      name: capz-demo-md-0-x2kqp
      namespace: default
    dataSecretName: capz-demo-md-0-x2kqp
  clusterName: capz-demo
  infrastructureRef:
    apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
    kind: AzureMachine
    name: capz-demo-md-0-x2kqp
    namespace: default
  providerID: azure:///subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/capz-demo/providers/Microsoft.Compute/virtualMachines/capz-demo-md-0-x2kqp
  version: v1.30.2
  failureDomain: "1"
  nodeDeletionTimeout: 10s
  readinessGates:
  - conditionType: APIServerPodHealthy
status:
  nodeRef:
    apiVersion: v1
    kind: Node
    name: capz-demo-md-0-x2kqp
    uid: 9d5b5f4c-3c11-4a0f-b0d4-5e9a7c2a1f00
  nodeInfo:
    architecture: amd64
    kubeletVersion: v1.30.2
    operatingSystem: linux
  addresses:
  - type: InternalIP
    address: 10.1.0.4
  - type: Hostname
    address: capz-demo-md-0-x2kqp
  phase: Running
  bootstrapReady: true
  infrastructureReady: true
  lastUpdated: "2024-05-14T09:24:40Z"
  observedGeneration: 2
  conditions:
  - type: Ready
    status: "True"
    lastTransitionTime: "2024-05-14T09:24:40Z"
  - type: NodeHealthy
    status: "False"
    severity: Info
    reason: NodeProvisioning
    message: waiting for the node to become Ready
    lastTransitionTime: "2024-05-14T09:24:40Z"
)";

TEST(ClusterApiManifestTest, QuickstartTemplateDecodesWithoutErrors) {
  std::vector<Json> docs = documents(kClusterTemplate);
  ASSERT_EQ(docs.size(), 3u);
  Cluster cluster = decodeValid<Cluster>(docs[0]);
  ASSERT_TRUE(cluster.spec.clusterNetwork.has_value());
  EXPECT_EQ(cluster.spec.clusterNetwork->apiServerPort, 6443);
  EXPECT_EQ(cluster.spec.clusterNetwork->services->cidrBlocks.size(), 2u);
  ASSERT_TRUE(cluster.spec.infrastructureRef.has_value());
  EXPECT_EQ(cluster.spec.infrastructureRef->kind, "AzureCluster");

  MachineDeployment md = decodeValid<MachineDeployment>(docs[1]);
  EXPECT_EQ(md.spec.replicas, 3);
  EXPECT_EQ(md.spec.strategy->rollingUpdate->maxSurge, IntOrString::ofString("25%"));
  EXPECT_EQ(md.spec.strategy->rollingUpdate->maxUnavailable, IntOrString::ofInt(0));
  EXPECT_EQ(md.spec.template_.spec.nodeDrainTimeout->toString(), "5m0s");

  MachinePool pool = decodeValid<MachinePool>(docs[2]);
  EXPECT_EQ(pool.spec.failureDomains, (std::vector<std::string>{"1", "2"}));
}

TEST(ClusterApiManifestTest, ControllerWrittenObjectsWithStatusDecodeWithoutErrors) {
  std::vector<Json> docs = documents(kControllerObjects);
  ASSERT_EQ(docs.size(), 2u);
  MachineSet set = decodeValid<MachineSet>(docs[0]);
  EXPECT_EQ(set.status.readyReplicas, 2);
  ASSERT_EQ(set.status.conditions.size(), 2u);
  EXPECT_EQ(set.status.conditions[0].severity, "Warning");

  Machine machine = decodeValid<Machine>(docs[1]);
  EXPECT_EQ(machine.status.phase, "Running");
  EXPECT_EQ(machine.status.addresses[0].address, "10.1.0.4");
  EXPECT_EQ(machine.status.nodeInfo["kubeletVersion"], "v1.30.2");
  EXPECT_EQ(machine.status.conditions[1].message, "waiting for the node to become Ready");
}

TEST(ClusterApiManifestTest, DecodeEncodeDecodeKeepsEveryDocument) {
  for (const char* stream : {kClusterTemplate, kControllerObjects}) {
    for (const Json& doc : documents(stream)) {
      DecodedObject first = decode(doc);
      ASSERT_TRUE(first.object.has_value());
      Json encoded = first.object->toJson();
      DecodedObject second = decode(encoded);
      ASSERT_EQ(errorStrings(second.errors), std::vector<std::string>{});
      EXPECT_EQ(second.object->toJson(), encoded) << doc["kind"];
    }
  }
}

TEST(MachineDeploymentDefaultsTest, FillsTheWebhookDefaults) {
  MachineDeployment md = decodeValid<MachineDeployment>(document(R"(
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachineDeployment
metadata:
  name: md-0
spec:
  clusterName: demo
  template:
    spec:
      clusterName: demo
      bootstrap:
        dataSecretName: md-0-bootstrap
      infrastructureRef:
        kind: AzureMachineTemplate
        name: md-0
      version: 1.30.2
)"));
  EXPECT_EQ(md.spec.replicas, 1);
  EXPECT_EQ(md.spec.minReadySeconds, 0);
  EXPECT_EQ(md.spec.revisionHistoryLimit, 1);
  EXPECT_EQ(md.spec.progressDeadlineSeconds, 600);
  ASSERT_TRUE(md.spec.strategy.has_value());
  EXPECT_EQ(md.spec.strategy->type, "RollingUpdate");
  EXPECT_EQ(md.spec.strategy->rollingUpdate->maxSurge, IntOrString::ofInt(1));
  EXPECT_EQ(md.spec.strategy->rollingUpdate->maxUnavailable, IntOrString::ofInt(0));
  const std::map<std::string, std::string> selected = {
      {"cluster.x-k8s.io/cluster-name", "demo"}, {"cluster.x-k8s.io/deployment-name", "md-0"}};
  EXPECT_EQ(md.spec.selector.matchLabels, selected);
  EXPECT_EQ(md.spec.template_.metadata.labels, selected);
  EXPECT_EQ(md.metadata.labels.at("cluster.x-k8s.io/cluster-name"), "demo");
  EXPECT_EQ(md.spec.template_.spec.version, "v1.30.2");
}

TEST(MachineDeploymentDefaultsTest, ReplicasStartAtTheAutoscalerMinimum) {
  Json doc = documents(kClusterTemplate)[1];
  doc["spec"].erase("replicas");
  EXPECT_EQ(decodeValid<MachineDeployment>(doc).spec.replicas, 2);
}

TEST(MachineDeploymentDefaultsTest, OnDeleteStrategyGetsNoRollingUpdateBounds) {
  Json doc = documents(kClusterTemplate)[1];
  doc["spec"]["strategy"] = Json{{"type", "OnDelete"}};
  MachineDeployment md = decodeValid<MachineDeployment>(doc);
  EXPECT_FALSE(md.spec.strategy->rollingUpdate.has_value());
}

TEST(MachineDefaultsTest, PointsReferencesIntoTheMachineNamespace) {
  Machine m = decodeValid<Machine>(document(R"(
apiVersion: cluster.x-k8s.io/v1beta1
kind: Machine
metadata:
  name: standalone
  namespace: team-a
spec:
  clusterName: demo
  bootstrap:
    configRef:
      kind: KubeadmConfig
      name: standalone
  infrastructureRef:
    kind: AzureMachine
    name: standalone
)"));
  EXPECT_EQ(m.spec.bootstrap.configRef->namespace_, "team-a");
  EXPECT_EQ(m.spec.infrastructureRef.namespace_, "team-a");
  EXPECT_EQ(m.metadata.labels.at(kClusterNameLabel), "demo");
  EXPECT_EQ(m.spec.nodeDeletionTimeout->toString(), "10s");
}

TEST(MachineSetDefaultsTest, SelectsByAHashWhenTheNameIsNoLabelValue) {
  MachineSet set = decodeValid<MachineSet>(document(R"(
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachineSet
metadata:
  name: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
spec:
  clusterName: demo
  template:
    spec:
      clusterName: demo
      bootstrap:
        dataSecretName: bootstrap
      infrastructureRef:
        kind: AzureMachineTemplate
        name: md-0
)"));
  // fnv32a of the name, URL-safe base64, as CAPI's format.MustFormatValue computes it.
  EXPECT_EQ(set.spec.selector.matchLabels.at(kMachineSetNameLabel), "hash_2W8PhQ_z");
  EXPECT_EQ(set.spec.template_.metadata.labels.at(kMachineSetNameLabel), "hash_2W8PhQ_z");
  EXPECT_EQ(set.spec.replicas, 1);
  EXPECT_EQ(set.spec.deletePolicy, "Random");
}

TEST(MachinePoolDefaultsTest, DefaultsReplicasAndMinReadySeconds) {
  Json doc = documents(kClusterTemplate)[2];
  doc["spec"].erase("replicas");
  MachinePool pool = decodeValid<MachinePool>(doc);
  EXPECT_EQ(pool.spec.replicas, 1);
  EXPECT_EQ(pool.spec.minReadySeconds, 0);
  EXPECT_EQ(pool.spec.template_.spec.bootstrap.configRef->namespace_, "default");
}

TEST(ClusterApiRegistryTest, RegistersKindsWithUpstreamNamesAndColumns) {
  const Registry& r = builtinRegistry();
  for (auto [name, kind] :
       std::vector<std::pair<std::string, std::string>>{{"cl", "Cluster"},
                                                        {"md", "MachineDeployment"},
                                                        {"ms", "MachineSet"},
                                                        {"ma", "Machine"},
                                                        {"mp", "MachinePool"}}) {
    const KindInfo* info = r.lookup(name);
    ASSERT_NE(info, nullptr) << name;
    EXPECT_EQ(info->kind, kind);
    EXPECT_EQ(info->apiVersion(), "cluster.x-k8s.io/v1beta1");
    EXPECT_TRUE(info->namespaced);
    EXPECT_TRUE(info->statusSubresource);
    EXPECT_EQ(info->categories, std::vector<std::string>{"cluster-api"});
    EXPECT_FALSE(info->printerColumns.empty());
  }
  // The current Machine wins over the seed-era karpenter.sh Machine.
  EXPECT_EQ(r.lookup("machines")->group, "cluster.x-k8s.io");
  EXPECT_EQ(r.find("cluster.x-k8s.io/v1beta1", "MachineDeployment")->printerColumns[1].priority,
            10);
}

TEST(ClusterApiHashTest, ReplicasAndPausedNeverDrift) {
  MachineDeployment md = decodeValid<MachineDeployment>(documents(kClusterTemplate)[1]);
  uint64_t before = hashOf(md.spec);
  md.spec.replicas = 7;
  md.spec.paused = true;
  EXPECT_EQ(hashOf(md.spec), before);
  md.spec.template_.spec.version = "v1.31.0";
  EXPECT_NE(hashOf(md.spec), before);
}

}  // namespace
}  // namespace nodewright::api::capi
