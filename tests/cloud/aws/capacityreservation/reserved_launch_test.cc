// The `reserved` capacity type end to end through the AWS provider and the EC2 emulator: a
// NodePool allowing reserved and on-demand sees the reservation as an almost free offering,
// claims launch into it (CapacityReservationSpecification targeting it) until it is full, then
// on-demand; a reservation EC2 finds full is dropped from the offerings; a reserved node whose
// reservation the node class no longer selects is drifted (CapacityReservationDrift).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cloud/aws/capacityreservation/offerings.h"
#include "cloud/aws/capacityreservation/reserve.h"
#include "support/cloud/aws/provider_fixture.h"

namespace nodewright::cloud::aws::testing {
namespace {

using api::karpenter::NodeClaim;

const std::vector<std::string> kReservedFirst = {"reserved", "on-demand"};

const Offering* offering(const InstanceTypes& types, const std::string& type,
                         const std::string& zone, const std::string& capacityType) {
  for (const InstanceType& t : types.compatible) {
    if (t.name != type) {
      continue;
    }
    for (const Offering& o : t.offerings) {
      if (o.zone == zone && o.capacityType == capacityType) {
        return &o;
      }
    }
  }
  return nullptr;
}

class ReservedLaunchTest : public ProviderTest {
 protected:
  void SetUp() override { start(); }

  // A targeted reservation of `count` m5.large in us-east-1a, selected by node class "reserved".
  std::string reserveAndSelect(int count) {
    ReservationSpec spec;
    spec.count = count;
    spec.matchCriteria = "targeted";
    const std::string id = createReservation(stack().ec2(), spec);
    auto nc = discoveryNodeClass("reserved");
    api::karpenter::CapacityReservationSelectorTerm term;
    term.id = id;
    nc.spec.capacityReservationSelectorTerms = {term};
    nodeClasses_[nc.metadata.name] = nc;
    return id;
  }

  api::karpenter::NodePool pool() {
    auto p = nodePool("default", "reserved");
    p.spec.template_.spec.requirements.push_back(
        {"karpenter.sh/capacity-type", "In", kReservedFirst, std::nullopt});
    return p;
  }

  InstanceTypes typesOfPool() {
    auto types = provider().instanceTypes(pool());
    EXPECT_TRUE(types) << types.error().message();
    return types ? *types : InstanceTypes{};
  }

  core::Result<Machine> launch(const std::string& name) {
    return provider().create(nodeClaim(name, "reserved", {"m5.large"}, kReservedFirst));
  }

  int64_t availableInEc2(const std::string& id) {
    auto found = stack().ec2().describeCapacityReservations({}, {id});
    EXPECT_TRUE(found && found->size() == 1u);
    return found && !found->empty() ? found->front().availableInstanceCount : -1;
  }

  // The value of `field` in each CreateLaunchTemplate sent ("" when a template has none).
  std::vector<std::string> templateValues(const std::string& field) {
    std::vector<std::string> out;
    for (const auto& request : recorder_->requests("CreateLaunchTemplate")) {
      std::string value;
      for (const auto& [key, v] : request) {
        if (key == "LaunchTemplateData." + field) {
          value = v;
        }
      }
      out.push_back(value);
    }
    return out;
  }
};

TEST_F(ReservedLaunchTest, ClaimsLandOnTheReservationUntilItIsFullThenOnDemand) {
  const std::string id = reserveAndSelect(2);
  InstanceTypes before = typesOfPool();
  const Offering* reserved = offering(before, "m5.large", "us-east-1a", kCapacityTypeReserved);
  const Offering* onDemand = offering(before, "m5.large", "us-east-1a", kCapacityTypeOnDemand);
  ASSERT_NE(reserved, nullptr);
  ASSERT_NE(onDemand, nullptr);
  EXPECT_TRUE(reserved->available);
  EXPECT_LT(reserved->pricePerHour, onDemand->pricePerHour / 1000);
  EXPECT_EQ(offering(before, "m5.large", "us-east-1b", kCapacityTypeReserved), nullptr);

  std::vector<std::string> capacityTypes;
  for (int i = 0; i < 4; ++i) {
    auto machine = launch("claim-" + std::to_string(i));
    ASSERT_TRUE(machine) << machine.error().message();
    capacityTypes.push_back(machine->capacityType);
    EXPECT_EQ(machine->labels.at("karpenter.sh/capacity-type"), machine->capacityType);
    if (machine->capacityType == kCapacityTypeReserved) {
      EXPECT_EQ(machine->zone, "us-east-1a");
      EXPECT_EQ(machine->labels.at(kLabelCapacityReservationID), id);
      EXPECT_EQ(machine->labels.at(kLabelCapacityReservationType), "default");
      EXPECT_EQ(machine->labels.at(kLabelCapacityReservationInterruptible), "false");
    } else {
      EXPECT_FALSE(machine->labels.contains(kLabelCapacityReservationID));
    }
  }
  EXPECT_THAT(capacityTypes,
              ::testing::ElementsAre("reserved", "reserved", "on-demand", "on-demand"));
  EXPECT_EQ(availableInEc2(id), 0);
  // The reserved launches target the reservation; the others opt out of open ones.
  EXPECT_THAT(templateValues("CapacityReservationSpecification.CapacityReservationTarget."
                             "CapacityReservationId"),
              ::testing::Contains(id));
  EXPECT_THAT(templateValues("CapacityReservationSpecification.CapacityReservationPreference"),
              ::testing::IsSupersetOf({"capacity-reservations-only", "none"}));

  InstanceTypes after = typesOfPool();
  reserved = offering(after, "m5.large", "us-east-1a", kCapacityTypeReserved);
  ASSERT_NE(reserved, nullptr);
  EXPECT_FALSE(reserved->available);

  // What DescribeInstances tells of a reserved instance reads back the same.
  auto listed = provider().list();
  ASSERT_TRUE(listed) << listed.error().message();
  int reservedListed = 0;
  for (const Machine& m : *listed) {
    reservedListed += m.capacityType == kCapacityTypeReserved ? 1 : 0;
  }
  EXPECT_EQ(reservedListed, 2);
}

TEST_F(ReservedLaunchTest, PoolNotAllowingReservedIsNotOfferedIt) {
  reserveAndSelect(2);
  auto types = provider().instanceTypes(nodePool("default", "reserved"));
  ASSERT_TRUE(types) << types.error().message();
  EXPECT_EQ(offering(*types, "m5.large", "us-east-1a", kCapacityTypeReserved), nullptr);
  auto machine = provider().create(nodeClaim("od", "reserved", {"m5.large"}));
  ASSERT_TRUE(machine) << machine.error().message();
  EXPECT_EQ(machine->capacityType, kCapacityTypeOnDemand);
}

TEST_F(ReservedLaunchTest, ReservationEc2FindsFullStopsBeingOfferedAndTheRetryGoesOnDemand) {
  const std::string id = reserveAndSelect(1);
  InstanceTypes before = typesOfPool();  // the provider believes one instance fits
  ASSERT_TRUE(offering(before, "m5.large", "us-east-1a", kCapacityTypeReserved)->available);
  // Someone else takes it behind the provider's back.
  editReservation(server_->emulator(), id, [](auto& a) { a.availableInstanceCount = 0; });

  auto failed = launch("raced");
  ASSERT_FALSE(failed);
  EXPECT_TRUE(failed.error().is(core::Code::InsufficientCapacity)) << failed.error().message();
  EXPECT_NE(failed.error().message().find("ReservationCapacityExceeded"), std::string::npos)
      << failed.error().message();
  EXPECT_FALSE(offering(typesOfPool(), "m5.large", "us-east-1a", kCapacityTypeReserved)->available);

  auto retried = launch("raced-again");
  ASSERT_TRUE(retried) << retried.error().message();
  EXPECT_EQ(retried->capacityType, kCapacityTypeOnDemand);
}

TEST_F(ReservedLaunchTest, ReservedNodeDriftsOnceItsReservationIsNoLongerSelected) {
  const std::string id = reserveAndSelect(1);
  NodeClaim claim = nodeClaim("drifting", "reserved", {"m5.large"}, kReservedFirst);
  auto machine = provider().create(claim);
  ASSERT_TRUE(machine) << machine.error().message();
  ASSERT_EQ(machine->capacityType, kCapacityTypeReserved);
  claim.status.providerID = machine->providerID;
  claim.status.imageID = machine->imageID;
  claim.metadata.labels.insert(machine->labels.begin(), machine->labels.end());
  claim.metadata.annotations = machine->annotations;

  auto checkOf = [&]() -> DriftCheck {
    auto checks = provider().isDrifted(claim);
    EXPECT_TRUE(checks) << checks.error().message();
    for (const DriftCheck& c : checks ? *checks : std::vector<DriftCheck>{}) {
      if (c.name == "CapacityReservation") {
        return c;
      }
    }
    ADD_FAILURE() << "no CapacityReservation check";
    return {};
  };
  // The node class controller wrote the reservation into the status.
  api::karpenter::EC2NodeClass& nc = nodeClasses_["reserved"];
  api::karpenter::CapacityReservationStatus status;
  status.id = id;
  nc.status.capacityReservations = {status};
  EXPECT_FALSE(checkOf().drifted) << checkOf().detail;

  nc.status.capacityReservations.clear();
  nc.metadata.resourceVersion = "2";
  DriftCheck drifted = checkOf();
  EXPECT_TRUE(drifted.drifted);
  EXPECT_EQ(drifted.reason, "CapacityReservationDrift");

  // An on-demand node never drifts for reservations.
  NodeClaim od = nodeClaim("on-demand", "reserved", {"m5.large"});
  auto odMachine = provider().create(od);
  ASSERT_TRUE(odMachine) << odMachine.error().message();
  od.status.providerID = odMachine->providerID;
  od.metadata.annotations = odMachine->annotations;
  auto checks = provider().isDrifted(od);
  ASSERT_TRUE(checks) << checks.error().message();
  EXPECT_FALSE(checks->back().drifted);
  EXPECT_EQ(checks->back().name, "CapacityReservation");
}

}  // namespace
}  // namespace nodewright::cloud::aws::testing
