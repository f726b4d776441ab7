#include "controllers/capi/machine_controller.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "capi_env.h"
#include "controllers/capi/well_known.h"

// A single Machine and its AzureMachine: bootstrap data, the infrastructure contract, phases
// and deletion.
namespace nodewright::controllers::capi {
namespace {

using namespace capi::testing;

class MachineTest : public CapiEnv {
 protected:
  Machine createMachine(const std::string& name, std::optional<std::string> dataSecretName = {}) {
    Machine machine;
    machine.apiVersion = "cluster.x-k8s.io/v1beta1";
    machine.kind = "Machine";
    machine.metadata.name = name;
    machine.metadata.namespace_ = kNamespace;
    machine.spec.clusterName = kClusterName;
    machine.spec.version = "v1.30.2";
    if (dataSecretName) {
      machine.spec.bootstrap.dataSecretName = dataSecretName;
    } else {
      machine.spec.bootstrap.configRef = kubeadmConfigRef("KubeadmConfig", name);
    }
    machine.spec.infrastructureRef = infraRef("AzureMachine", name);
    auto created = machines_.create(machine);
    EXPECT_TRUE(created) << created.error().describe();
    return created.value_or(machine);
  }

  Machine machine(const std::string& name) {
    auto got = machines_.get(kNamespace, name);
    EXPECT_TRUE(got) << got.error().describe();
    return got.value_or(Machine{});
  }

  static std::string conditionStatus(const Machine& machine, const std::string& type) {
    for (const auto& condition : machine.status.conditions) {
      if (condition.type == type) {
        return condition.status;
      }
    }
    return "";
  }
};

TEST_F(MachineTest, WritesBootstrapSecretAndPointsDataSecretNameAtIt) {
  createAzureMachine("m-0");
  const Machine created = createMachine("m-0");
  ASSERT_TRUE(eventually([&] {
    Machine m = machine("m-0");
    return m.spec.bootstrap.dataSecretName == "m-0-bootstrap" && m.status.bootstrapReady &&
           m.status.phase == "Provisioning";
  }));
  auto secret = secrets_.get(kNamespace, "m-0-bootstrap");
  ASSERT_TRUE(secret) << secret.error().describe();
  EXPECT_EQ(secret->type, "cluster.x-k8s.io/secret");
  auto value = api::corev1::secretValue(*secret, "value");
  ASSERT_TRUE(value) << value.error().message();
  EXPECT_TRUE(value->starts_with("#cloud-config\n")) << *value;
  EXPECT_NE(value->find("hostname: m-0"), std::string::npos) << *value;
  // The sentinel CAPZ's bootstrap extension waits for.
  EXPECT_NE(value->find("/run/cluster-api/bootstrap-success.complete"), std::string::npos)
      << *value;
  auto format = api::corev1::secretValue(*secret, "format");
  ASSERT_TRUE(format);
  EXPECT_EQ(*format, "cloud-config");
  EXPECT_TRUE(ownedBy(secret->metadata, "Machine", created.metadata.uid));

  Machine m = machine("m-0");
  EXPECT_EQ(conditionStatus(m, "BootstrapReady"), "True");
  EXPECT_EQ(conditionStatus(m, "InfrastructureReady"), "False");
  EXPECT_EQ(conditionStatus(m, "Ready"), "False");
  EXPECT_NE(std::find(m.metadata.finalizers.begin(), m.metadata.finalizers.end(),
                      "machine.cluster.x-k8s.io"),
            m.metadata.finalizers.end());
  // The AzureMachine now belongs to the Machine.
  ASSERT_TRUE(eventually([&] {
    auto infra = azureMachines_.get(kNamespace, "m-0");
    return infra && ownedBy(infra->metadata, "Machine", created.metadata.uid) &&
           infra->metadata.labels[api::capi::kClusterNameLabel] == kClusterName;
  }));
}

TEST_F(MachineTest, UsesAGivenDataSecretAsIs) {
  createAzureMachine("m-0");
  createMachine("m-0", "my-bootstrap-data");
  ASSERT_TRUE(eventually([&] {
    Machine m = machine("m-0");
    return m.status.bootstrapReady && conditionStatus(m, "BootstrapReady") == "True";
  }));
  EXPECT_EQ(machine("m-0").spec.bootstrap.dataSecretName, "my-bootstrap-data");
  EXPECT_TRUE(gone(secrets_, "m-0-bootstrap"));
}

TEST_F(MachineTest, CopiesProviderIdAndAddressesOnceInfrastructureIsReady) {
  createAzureMachine("m-0");
  createMachine("m-0");
  ASSERT_TRUE(eventually([&] { return machine("m-0").status.phase == "Provisioning"; }));
  EXPECT_FALSE(machine("m-0").spec.providerID);

  ASSERT_TRUE(markAzureMachineReady("m-0"));
  ASSERT_TRUE(eventually([&] {
    Machine m = machine("m-0");
    return m.status.phase == "Running" && m.status.infrastructureReady;
  }));
  Machine m = machine("m-0");
  EXPECT_EQ(m.spec.providerID, providerIdOf("m-0"));
  ASSERT_EQ(m.status.addresses.size(), 2u);
  EXPECT_EQ(m.status.addresses[0].type, "InternalIP");
  EXPECT_EQ(m.status.addresses[0].address, "10.1.0.4");
  EXPECT_EQ(conditionStatus(m, "InfrastructureReady"), "True");
  EXPECT_EQ(conditionStatus(m, "Ready"), "True");
}

TEST_F(MachineTest, WaitsForItsInfrastructureObjectToExist) {
  createMachine("m-0");
  ASSERT_TRUE(eventually([&] {
    Machine m = machine("m-0");
    return m.status.bootstrapReady && conditionStatus(m, "InfrastructureReady") == "False";
  }));
  createAzureMachine("m-0");
  ASSERT_TRUE(markAzureMachineReady("m-0"));
  ASSERT_TRUE(eventually([&] { return machine("m-0").status.phase == "Running"; }));
}

TEST_F(MachineTest, ReportsTheInfrastructureFailure) {
  createAzureMachine("m-0");
  createMachine("m-0");
  mutate<AzureMachine>(
      azureMachines_, "m-0",
      [](AzureMachine& m) {
        m.status.failureReason = "CreateError";
        m.status.failureMessage = "VMProvisionFailed: quota exceeded";
      },
      true);
  ASSERT_TRUE(eventually([&] { return machine("m-0").status.phase == "Failed"; }));
  Machine m = machine("m-0");
  EXPECT_EQ(m.status.failureReason, "CreateError");
  EXPECT_EQ(m.status.failureMessage, "VMProvisionFailed: quota exceeded");
  EXPECT_EQ(conditionStatus(m, "Ready"), "False");
}

TEST_F(MachineTest, DeletionRemovesTheAzureMachineThenTheBootstrapSecret) {
  createAzureMachine("m-0");
  createMachine("m-0");
  ASSERT_TRUE(markAzureMachineReady("m-0"));
  ASSERT_TRUE(eventually([&] { return machine("m-0").status.phase == "Running"; }));
  // CAPZ's finalizer holds the AzureMachine while its VM is deleted.
  mutate<AzureMachine>(azureMachines_, "m-0", [](AzureMachine& m) {
    m.metadata.finalizers.push_back("azuremachine.infrastructure.cluster.x-k8s.io");
  });

  ASSERT_TRUE(machines_.remove(kNamespace, "m-0"));
  ASSERT_TRUE(eventually([&] {
    auto infra = azureMachines_.get(kNamespace, "m-0");
    return infra && infra->metadata.deletionTimestamp;
  }));
  // The Machine waits for the AzureMachine, and keeps its bootstrap data meanwhile.
  Machine waiting = machine("m-0");
  EXPECT_EQ(waiting.status.phase, "Deleting");
  EXPECT_FALSE(gone(secrets_, "m-0-bootstrap"));

  mutate<AzureMachine>(azureMachines_, "m-0",
                       [](AzureMachine& m) { m.metadata.finalizers.clear(); });
  ASSERT_TRUE(eventually([&] {
    return gone(azureMachines_, "m-0") && gone(secrets_, "m-0-bootstrap") && gone(machines_, "m-0");
  }));
}

TEST(MachinePhaseTest, FollowsBootstrapInfrastructureAndProviderId) {
  Machine m;
  EXPECT_EQ(machinePhase(m), "Pending");
  m.status.bootstrapReady = true;
  EXPECT_EQ(machinePhase(m), "Provisioning");
  m.status.infrastructureReady = true;
  EXPECT_EQ(machinePhase(m), "Provisioned");
  m.spec.providerID = "azure:///x";
  EXPECT_EQ(machinePhase(m), "Running");
  m.status.failureMessage = "boom";
  EXPECT_EQ(machinePhase(m), "Failed");
  m.metadata.deletionTimestamp = core::Time(core::systemClock().now());
  EXPECT_EQ(machinePhase(m), "Deleting");
}

}  // namespace
}  // namespace nodewright::controllers::capi
