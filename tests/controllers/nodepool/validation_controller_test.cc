#include "controllers/nodepool/validation_controller.h"

#include <gtest/gtest.h>

#include "controllers/nodeclaim/conditions.h"
#include "controllers/nodepool/controllers.h"
#include "controllers/nodepool/controllers_env.h"

// nodepool.validation: what upstream leaves to runtime (kubernetes-sigs/karpenter v1.14
// nodepool_validation.go RuntimeValidate) is admitted and then reported on the NodePool as
// ValidationSucceeded, False with the problem until the pool is fixed.
namespace nodewright::controllers::nodepool {
namespace {

using namespace controllers::testing;

class ValidationControllerTest : public ControllersEnv {
 protected:
  void SetUp() override {
    start([](runtime::Manager& m) -> std::shared_ptr<void> { return setup(m); });
  }

  // Waits for the pool's ValidationSucceeded condition to have `status`; returns it.
  std::optional<api::Condition> awaitValidation(const std::string& name,
                                                const std::string& status) {
    std::optional<api::Condition> seen;
    eventually([&] {
      auto got = pools_.get("", name);
      if (!got) {
        return false;
      }
      const api::Condition* c =
          nodeclaim::findCondition(got->status.conditions, kValidationSucceeded);
      seen = c ? std::optional<api::Condition>(*c) : std::nullopt;
      return c != nullptr && c->status == status;
    });
    return seen;
  }
};

TEST_F(ValidationControllerTest, ReportsRuntimeProblemsUntilTheyAreFixed) {
  createPool("valid");
  auto valid = awaitValidation("valid", "True");
  ASSERT_TRUE(valid && valid->status == "True");

  // A label key with spaces passes the CRD (no pattern on label keys) but not IsQualifiedName.
  createPool("bad-label");
  mutate<NodePool>(pools_, "bad-label", [](NodePool& p) {
    p.spec.template_.metadata.labels["spaces are not allowed"] = "x";
  });
  auto invalid = awaitValidation("bad-label", "False");
  ASSERT_TRUE(invalid && invalid->status == "False");
  EXPECT_EQ(invalid->reason, kValidationFailedReason);
  EXPECT_NE(invalid->message.find("spaces are not allowed"), std::string::npos) << invalid->message;

  mutate<NodePool>(pools_, "bad-label", [](NodePool& p) {
    p.spec.template_.metadata.labels.erase("spaces are not allowed");
  });
  auto fixed = awaitValidation("bad-label", "True");
  ASSERT_TRUE(fixed && fixed->status == "True");
}

TEST_F(ValidationControllerTest, CapacityTypesWithNoKnownValueFailValidation) {
  createPool("spot-typo");
  mutate<NodePool>(pools_, "spot-typo", [](NodePool& p) {
    p.spec.template_.spec.requirements.push_back(
        {"karpenter.sh/capacity-type", "In", {"xspot"}, std::nullopt});
  });
  auto invalid = awaitValidation("spot-typo", "False");
  ASSERT_TRUE(invalid && invalid->status == "False");
  EXPECT_NE(invalid->message.find("karpenter.sh/capacity-type"), std::string::npos)
      << invalid->message;
}

}  // namespace
}  // namespace nodewright::controllers::nodepool
