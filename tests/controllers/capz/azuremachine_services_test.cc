// An AzureMachine's services (src/controllers/capz/azuremachine) through the ServiceRunner and
// the futures engine against the ARM emulator.
#include <algorithm>

#include "api/capz/conditions.h"
#include "api/core/validation.h"
#include "controllers/capz/azuremachine/bodies.h"
#include "controllers/capz/azuremachine/machine_fixture.h"

namespace nodewright::controllers::capz::azuremachine::testing {
namespace {

using Kind = lro::Outcome::Kind;

class AzureMachineServicesTest : public MachineServicesFixture {};

std::string vmIdOf(const std::string& name) {
  return kRgId + "/providers/Microsoft.Compute/virtualMachines/" + name;
}

bool hasAddress(const VmObservation& vm, const std::string& type, const std::string& prefix) {
  return std::any_of(vm.addresses.begin(), vm.addresses.end(), [&](const auto& a) {
    return a.type == type && a.address.starts_with(prefix);
  });
}

TEST_F(AzureMachineServicesTest, BuildsServicesInCapzOrderWithTheirDependencies) {
  api::capz::AzureMachine machine = azureMachine("m-order");
  machine.spec.allocatePublicIP = true;
  std::vector<Service> list = services(scopeFor(machine));
  std::vector<std::string> names;
  for (const Service& s : list) {
    names.push_back(s.name);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"publicips", "networkinterfaces", "availabilitysets",
                                             "disks", "virtualmachine", "vmextensions", "tags"}));
  auto find = [&](const std::string& name) {
    return *std::find_if(list.begin(), list.end(),
                         [&](const Service& s) { return s.name == name; });
  };
  EXPECT_EQ(find("networkinterfaces").dependsOn, std::vector<std::string>{"publicips"});
  EXPECT_EQ(find("virtualmachine").dependsOn,
            (std::vector<std::string>{"networkinterfaces", "availabilitysets", "disks"}));
  EXPECT_EQ(find("vmextensions").dependsOn, std::vector<std::string>{"virtualmachine"});
  EXPECT_TRUE(find("tags").skipDelete);
  EXPECT_TRUE(find("availabilitysets").skipDelete);
  EXPECT_TRUE(find("disks").specs.empty());  // delete-only
  EXPECT_EQ(find("virtualmachine").conditionType, kVMRunningCondition);
}

TEST_F(AzureMachineServicesTest, VmBodyCarriesCapzProfile) {
  api::capz::AzureMachine machine = azureMachine("m-body");
  machine.spec.additionalTags = {{"team", "a"}};
  api::capz::DataDisk etcd;
  etcd.nameSuffix = "etcddisk";
  etcd.diskSizeGB = 256;
  etcd.lun = 0;
  machine.spec.dataDisks = {etcd};
  api::capz::SpotVMOptions spot;
  machine.spec.spotVMOptions = spot;
  MachineScope scope = scopeFor(machine);
  auto body = vmBody(scope, {vmIdOf("m-body") + "-nic"}, std::string("as-id"));
  ASSERT_TRUE(body) << body.error().message();
  const api::Json& props = (*body)["properties"];
  EXPECT_EQ(props["hardwareProfile"]["vmSize"], "Standard_D2s_v3");
  EXPECT_EQ(props["osProfile"]["computerName"], "m-body");
  EXPECT_EQ(props["osProfile"]["adminUsername"], "capi");
  EXPECT_EQ(api::corev1::decodeBase64(props["osProfile"]["customData"].get<std::string>()).bytes,
            scope.bootstrapData);
  EXPECT_EQ(props["osProfile"]["linuxConfiguration"]["ssh"]["publicKeys"][0]["keyData"],
            "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQC7 capz@example");
  EXPECT_EQ(props["storageProfile"]["osDisk"]["name"], "m-body_OSDisk");
  EXPECT_EQ(props["storageProfile"]["osDisk"]["diskSizeGB"], 128);
  EXPECT_EQ(props["storageProfile"]["dataDisks"][0]["name"], "m-body_etcddisk");
  EXPECT_EQ(props["storageProfile"]["dataDisks"][0]["createOption"], "Empty");
  EXPECT_EQ(props["availabilitySet"]["id"], "as-id");
  EXPECT_EQ(props["priority"], "Spot");
  EXPECT_EQ(props["billingProfile"]["maxPrice"], -1);
  const api::Json& tags = (*body)["tags"];
  EXPECT_EQ(tags["sigs.k8s.io_cluster-api-provider-azure_cluster_capz"], "owned");
  EXPECT_EQ(tags["sigs.k8s.io_cluster-api-provider-azure_role"], "node");
  EXPECT_EQ(tags["Name"], "m-body");
  EXPECT_EQ(tags["team"], "a");
  EXPECT_EQ(tags["env"], "test");  // the cluster's additionalTags
}

TEST_F(AzureMachineServicesTest, RefusesAMachineWithoutASubnetForItsRole) {
  api::capz::AzureMachine machine = azureMachine("m-nosubnet");
  cluster_.spec.networkSpec.subnets.pop_back();  // the node subnet
  auto built = machineServices(scopeFor(machine), Purpose::Create);
  ASSERT_FALSE(built.has_value());
  EXPECT_NE(built.error().message().find("role node"), std::string::npos);
  // Deleting needs no subnet.
  EXPECT_TRUE(machineServices(scopeFor(machine), Purpose::Delete).has_value());
}

TEST_F(AzureMachineServicesTest, CreatesEveryServiceWithOneVmPutAndReportsTheVm) {
  api::capz::AzureMachine machine = azureMachine("m-create");
  machine.spec.allocatePublicIP = true;
  MachineScope scope = scopeFor(machine);
  std::vector<Service> list = services(scope);

  // Passes until the VM has started (its prerequisites take a pass or two).
  Pass first;
  for (int i = 0; i < 5 && condition(machine, kVMRunningCondition) == nullptr; ++i) {
    first = runner_->reconcile(list, machine.status.longRunningOperationStates,
                               machine.status.conditions);
    EXPECT_FALSE(first.done);
    EXPECT_FALSE(first.failed) << first.failureMessage;
    if (condition(machine, kVMRunningCondition) == nullptr) {
      clock_.advance(first.requeueAfter.value_or(10s));
    }
  }
  // The VM is in flight: parked as a future, VMRunning False with CAPZ's Creating reason.
  ASSERT_NE(condition(machine, kVMRunningCondition), nullptr);
  EXPECT_EQ(condition(machine, kVMRunningCondition)->reason, api::capz::kCreatingReason);
  EXPECT_FALSE(machine.status.longRunningOperationStates.empty());

  clock_.advance(first.requeueAfter.value_or(10s));
  Pass pass = runUntilDone(list, machine);
  ASSERT_TRUE(pass.done) << pass.failureMessage;
  EXPECT_TRUE(machine.status.longRunningOperationStates.empty());
  EXPECT_EQ(putsOf(vmIdOf("m-create")), 1);
  for (const char* type : {api::capz::kPublicIPsReadyCondition, kNetworkInterfacesReadyCondition,
                           api::capz::kAvailabilitySetReadyCondition, kVMRunningCondition,
                           kBootstrapSucceededCondition}) {
    const auto* c = condition(machine, type);
    ASSERT_NE(c, nullptr) << type;
    EXPECT_EQ(c->status, "True") << type;
  }

  auto vm = observeVm(scope, pass);
  ASSERT_TRUE(vm.has_value());
  EXPECT_EQ(vm->providerID, "azure://" + vmIdOf("m-create"));
  EXPECT_EQ(vm->vmState, "Succeeded");
  EXPECT_TRUE(hasAddress(*vm, "InternalDNS", "m-create"));
  EXPECT_TRUE(hasAddress(*vm, "InternalIP", "10.1.0.")) << "the node subnet's range";
  EXPECT_TRUE(hasAddress(*vm, "ExternalIP", "20."));

  // Steady state: nothing is sent again.
  Pass again = runUntilDone(list, machine);
  EXPECT_TRUE(again.done);
  EXPECT_EQ(putsOf(vmIdOf("m-create")), 1);
  EXPECT_EQ(putsOf(id("Microsoft.Network/networkInterfaces", "m-create-nic")), 1);
}

TEST_F(AzureMachineServicesTest, DeletesInReverseAndLeavesNoVmNicOrDisk) {
  api::capz::AzureMachine machine = azureMachine("m-delete");
  machine.spec.allocatePublicIP = true;
  MachineScope scope = scopeFor(machine);
  ASSERT_TRUE(runUntilDone(services(scope), machine).done);
  const std::string vm = vmIdOf("m-delete");
  const std::string nic = id("Microsoft.Network/networkInterfaces", "m-delete-nic");
  const std::string pip = id("Microsoft.Network/publicIPAddresses", "pip-m-delete");
  const std::string set = id("Microsoft.Compute/availabilitySets", "capz_md-0-as");
  ASSERT_TRUE(exists(vm));
  ASSERT_TRUE(exists(nic));
  ASSERT_TRUE(exists(set));

  std::vector<Service> removal = services(scope, Purpose::Delete);
  Pass first = runner_->remove(removal, machine.status.longRunningOperationStates,
                               machine.status.conditions);
  EXPECT_FALSE(first.done);
  // The VM's delete runs; its NIC waits for it (ARM would refuse: the VM still uses it).
  ASSERT_NE(condition(machine, kVMRunningCondition), nullptr);
  EXPECT_EQ(condition(machine, kVMRunningCondition)->reason, api::capz::kDeletingReason);
  EXPECT_TRUE(exists(nic));

  clock_.advance(first.requeueAfter.value_or(10s));
  Pass pass = runUntilDone(removal, machine, /*deleting=*/true);
  ASSERT_TRUE(pass.done) << pass.failureMessage;
  EXPECT_FALSE(exists(vm));
  EXPECT_FALSE(exists(nic));
  EXPECT_FALSE(exists(pip));
  EXPECT_FALSE(exists(id("Microsoft.Compute/disks", "m-delete_OSDisk")));
  EXPECT_FALSE(exists(vm + "/extensions/CAPZ.Linux.Bootstrapping"));
  EXPECT_TRUE(machine.status.longRunningOperationStates.empty());
  const auto* nicReady = condition(machine, kNetworkInterfacesReadyCondition);
  ASSERT_NE(nicReady, nullptr);
  EXPECT_EQ(nicReady->reason, api::capz::kDeletedReason);

  // The last machine of the deployment takes its availability set along.
  lro::Outcome setGone =
      removeAvailabilitySetIfUnused(*engine_, scope, machine.status.longRunningOperationStates);
  EXPECT_EQ(setGone.kind, Kind::Done) << setGone.message;
  EXPECT_FALSE(exists(set));
}

TEST_F(AzureMachineServicesTest, KeepsTheAvailabilitySetWhileAnotherMachineIsInIt) {
  api::capz::AzureMachine a = azureMachine("m-a");
  api::capz::AzureMachine b = azureMachine("m-b");
  ASSERT_TRUE(runUntilDone(services(scopeFor(a)), a).done);
  ASSERT_TRUE(runUntilDone(services(scopeFor(b)), b).done);
  const std::string set = id("Microsoft.Compute/availabilitySets", "capz_md-0-as");
  ASSERT_TRUE(runUntilDone(services(scopeFor(a), Purpose::Delete), a, true).done);
  lro::Outcome kept =
      removeAvailabilitySetIfUnused(*engine_, scopeFor(a), a.status.longRunningOperationStates);
  EXPECT_EQ(kept.kind, Kind::Done) << kept.message;
  EXPECT_TRUE(exists(set)) << "m-b is still in it";
  EXPECT_TRUE(exists(vmIdOf("m-b")));
}

TEST_F(AzureMachineServicesTest, ChangedAdditionalTagsReachTheVm) {
  api::capz::AzureMachine machine = azureMachine("m-tags");
  ASSERT_TRUE(runUntilDone(services(scopeFor(machine)), machine).done);
  machine.spec.additionalTags["cost-center"] = "42";
  MachineScope scope = scopeFor(machine);
  Pass pass = runUntilDone(services(scope), machine);
  ASSERT_TRUE(pass.done) << pass.failureMessage;
  auto got = client_->get(ref(vmIdOf("m-tags"), "check"), kCall);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ((*got)["tags"]["cost-center"], "42");
  EXPECT_EQ((*got)["tags"]["Name"], "m-tags");
  EXPECT_EQ(putsOf(vmIdOf("m-tags")), 2);  // the create and the tags
  // Up to date afterwards.
  ASSERT_TRUE(runUntilDone(services(scope), machine).done);
  EXPECT_EQ(putsOf(vmIdOf("m-tags")), 2);
}

TEST_F(AzureMachineServicesTest, RoleAssignmentWaitsForTheIdentityPrincipal) {
  api::capz::AzureMachine machine = azureMachine("m-identity");
  machine.spec.identity = "SystemAssigned";
  MachineScope scope = scopeFor(machine);
  std::vector<std::string> names;
  for (const Service& s : services(scope)) {
    names.push_back(s.name);
  }
  EXPECT_EQ(std::count(names.begin(), names.end(), "roleassignments"), 0);
  ASSERT_EQ(roleAssignmentServices(scope).size(), 1u);

  scope.principalId = "33333333-3333-3333-3333-333333333333";
  ASSERT_TRUE(runUntilDone(services(scope), machine).done);
  const auto* role = condition(machine, api::capz::kRoleAssignmentReadyCondition);
  ASSERT_NE(role, nullptr);
  EXPECT_EQ(role->status, "True");
  // The assignment sits in the resource group's scope, named by a stable GUID.
  const std::string assignment = roleAssignmentServices(scope)[0].specs[0]->resource().id;
  EXPECT_TRUE(
      assignment.starts_with(kRgId + "/providers/Microsoft.Authorization/roleAssignments/"));
  EXPECT_TRUE(exists(assignment));
  ASSERT_TRUE(runUntilDone(services(scope, Purpose::Delete), machine, true).done);
  EXPECT_FALSE(exists(assignment));
}

}  // namespace
}  // namespace nodewright::controllers::capz::azuremachine::testing
