#include "controllers/capi/external.h"

#include <gtest/gtest.h>

#include "capi_env.h"
#include "controllers/capi/well_known.h"

// Cloning from a template and adopting an external object never take over what belongs to
// someone else.
namespace nodewright::controllers::capi {
namespace {

using namespace capi::testing;

class ExternalTest : public CapiEnv {
 protected:
  static api::OwnerReference ownerRef(const std::string& kind, const std::string& name,
                                      const std::string& uid, bool controller) {
    api::OwnerReference ref;
    ref.apiVersion = "cluster.x-k8s.io/v1beta1";
    ref.kind = kind;
    ref.name = name;
    ref.uid = uid;
    ref.controller = controller;
    return ref;
  }

  CloneRequest cloneRequest(const std::string& name, const std::string& ownerUid) {
    CloneRequest request;
    request.templateRef = infraRef("AzureMachineTemplate", "tmpl");
    request.ns = kNamespace;
    request.name = name;
    request.owner = ownerRef("MachineSet", "ms", ownerUid, false);
    return request;
  }
};

TEST_F(ExternalTest, AdoptingAnObjectAnotherControllerOwnsIsAConflict) {
  createAzureMachine("taken");
  AzureMachine machine = azureMachines_.get(kNamespace, "taken").value();
  machine.metadata.ownerReferences = {ownerRef("Machine", "first", "uid-first", true)};
  ASSERT_TRUE(azureMachines_.update(machine));
  auto object = getExternal(*client_, infraRef("AzureMachine", "taken"), kNamespace);
  ASSERT_TRUE(object) << object.error().describe();

  auto adopted =
      adoptExternal(*client_, *object, ownerRef("Machine", "second", "uid-second", true), {});

  ASSERT_FALSE(adopted);
  EXPECT_TRUE(adopted.error().is(kube::Reason::Conflict)) << adopted.error().describe();
  auto stored = azureMachines_.get(kNamespace, "taken");
  ASSERT_TRUE(stored);
  ASSERT_EQ(stored->metadata.ownerReferences.size(), 1u);
  EXPECT_EQ(stored->metadata.ownerReferences[0].uid, "uid-first");
}

TEST_F(ExternalTest, AdoptionKeepsTheClonersPlainReference) {
  createAzureMachine("cloned");
  AzureMachine machine = azureMachines_.get(kNamespace, "cloned").value();
  machine.metadata.ownerReferences = {ownerRef("MachineSet", "ms", "uid-ms", false)};
  ASSERT_TRUE(azureMachines_.update(machine));
  auto object = getExternal(*client_, infraRef("AzureMachine", "cloned"), kNamespace);
  ASSERT_TRUE(object) << object.error().describe();

  auto adopted = adoptExternal(*client_, *object, ownerRef("Machine", "m", "uid-m", true), {});

  ASSERT_TRUE(adopted) << adopted.error().describe();
  EXPECT_EQ(controllerUid(adopted->metadata()), "uid-m");
  EXPECT_EQ(adopted->metadata().ownerReferences.size(), 2u);
}

TEST_F(ExternalTest, AnExistingObjectIsThisCloneOnlyWhenItIsOurs) {
  createMachineTemplate("tmpl", "Standard_D2s_v3");
  createAzureMachine("someone-elses");

  auto foreign = cloneFromTemplate(*client_, cloneRequest("someone-elses", "uid-ms"));
  ASSERT_FALSE(foreign);
  EXPECT_TRUE(foreign.error().is(kube::Reason::AlreadyExists)) << foreign.error().describe();

  auto first = cloneFromTemplate(*client_, cloneRequest("fresh", "uid-ms"));
  ASSERT_TRUE(first) << first.error().describe();
  EXPECT_TRUE(first->created);
  auto retry = cloneFromTemplate(*client_, cloneRequest("fresh", "uid-ms"));
  ASSERT_TRUE(retry) << retry.error().describe();
  EXPECT_FALSE(retry->created) << "a retry after a lost answer";
  EXPECT_EQ(retry->ref.name, "fresh");
  auto otherOwner = cloneFromTemplate(*client_, cloneRequest("fresh", "uid-other"));
  EXPECT_FALSE(otherOwner) << "another owner's clone is not ours";
}

}  // namespace
}  // namespace nodewright::controllers::capi
