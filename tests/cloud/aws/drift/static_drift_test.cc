// The node class's static fields drift by hash (seed 002), network interfaces as seed 001's
// table says, and a claim stamped under another hash version never drifts.
#include <algorithm>
#include <functional>

#include <gtest/gtest.h>

#include "api/codec.h"
#include "api/reflect/operations.h"
#include "api/reflect/redact.h"
#include "drift_fixture.h"

namespace nodewright::cloud::aws::testing {
namespace {

using api::Json;
using api::karpenter::EC2NodeClass;
using api::karpenter::EC2NodeClassSpec;
using api::karpenter::HashPolicy;
using api::karpenter::NetworkInterface;

const HashPolicy& policy() {
  return api::karpenter::defaultHashPolicy();
}

// The checks of a claim launched from resolvedNodeClass() after `change` to the node class.
std::vector<DriftCheck> afterChange(const std::function<void(EC2NodeClass&)>& change) {
  EC2NodeClass nc = resolvedNodeClass();
  const auto claim = launchedClaim(nc);
  change(nc);
  return nodeClassDrift(claim, nc, runningInstance(), policy());
}

// Seed 001's table ------------------------------------------------------------------------------

struct InterfaceCase {
  std::string name;
  std::function<void(std::vector<NetworkInterface>&)> change;
  bool drifts;
  std::vector<std::string> paths;
};

std::string key(int card, int device) {
  return "spec.networkInterfaces[networkCardIndex=" + std::to_string(card) +
         ",deviceIndex=" + std::to_string(device) + "]";
}

class NetworkInterfaceDriftTest : public ::testing::TestWithParam<InterfaceCase> {};

TEST_P(NetworkInterfaceDriftTest, DriftsExactlyAsSeed001Says) {
  const InterfaceCase& c = GetParam();
  auto checks = afterChange([&](EC2NodeClass& nc) { c.change(nc.spec.networkInterfaces); });
  ASSERT_EQ(checks.front().name, "NodeClass");
  const DriftCheck& check = checks.front();
  EXPECT_EQ(check.drifted, c.drifts) << describe(check);
  EXPECT_EQ(check.reason, c.drifts ? "NodeClassDrifted" : "");
  EXPECT_EQ(paths(check), c.paths) << describe(check);
  // The dynamic checks are untouched by a static change. The live layout check compares the
  // instance with the current list, so a changed card, device, type or length shows there too.
  std::vector<std::string> others = drifted(checks);
  std::erase(others, "NetworkInterfaces");
  EXPECT_EQ(others, c.drifts ? std::vector<std::string>{"NodeClass"} : std::vector<std::string>{});
}

INSTANTIATE_TEST_SUITE_P(
    Seed001, NetworkInterfaceDriftTest,
    ::testing::Values(
        InterfaceCase{"AssociateCarrierIPAddress",
                      [](auto& l) { l[0].associateCarrierIPAddress = true; },
                      true,
                      {key(0, 0) + ".associateCarrierIPAddress"}},
        InterfaceCase{"AssociatePublicIPAddress",
                      [](auto& l) { l[0].associatePublicIPAddress = true; },
                      true,
                      {key(0, 0) + ".associatePublicIPAddress"}},
        InterfaceCase{"Description",
                      [](auto& l) { l[1].description = "data plane"; },
                      true,
                      {key(0, 1) + ".description"}},
        InterfaceCase{
            "DeviceIndex", [](auto& l) { l[1].deviceIndex = 2; }, true, {key(0, 1), key(0, 2)}},
        InterfaceCase{"InterfaceType",
                      [](auto& l) { l[1].interfaceType = "efa"; },
                      true,
                      {key(0, 1) + ".interfaceType"}},
        InterfaceCase{"NetworkCardIndex",
                      [](auto& l) { l[1].networkCardIndex = 1; },
                      true,
                      {key(0, 1), key(1, 1)}},
        InterfaceCase{"Ipv4PrefixCount",
                      [](auto& l) { l[0].ipv4PrefixCount = 2; },
                      true,
                      {key(0, 0) + ".ipv4PrefixCount"}},
        InterfaceCase{"Ipv6PrefixCount",
                      [](auto& l) { l[1].ipv6PrefixCount = 3; },
                      true,
                      {key(0, 1) + ".ipv6PrefixCount"}},
        InterfaceCase{
            "OneMoreInterface", [](auto& l) { l.push_back(interfaceAt(2)); }, true, {key(0, 2)}},
        InterfaceCase{"OneInterfaceFewer", [](auto& l) { l.pop_back(); }, true, {key(0, 1)}},
        InterfaceCase{
            "DeleteOnTermination", [](auto& l) { l[1].deleteOnTermination = false; }, false, {}},
        InterfaceCase{"Reordered", [](auto& l) { std::reverse(l.begin(), l.end()); }, false, {}},
        InterfaceCase{"OwnSelectorsAreDynamic",
                      [](auto& l) {
                        api::karpenter::SubnetSelectorTerm term;
                        term.id = "subnet-other";
                        l[1].subnetSelectorTerms = {term};
                      },
                      false,
                      {}}),
    [](const auto& info) { return info.param.name; });

TEST(NetworkInterfaceDriftValuesTest, AMovedInterfaceShowsWhatItWasAndIsNow) {
  auto checks = afterChange([](EC2NodeClass& nc) { nc.spec.networkInterfaces[1].deviceIndex = 2; });
  const auto& changes = checks.front().changes;
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].from["deviceIndex"], Json(1));
  EXPECT_EQ(changes[0].from["description"], Json("eth1"));
  EXPECT_TRUE(changes[0].to.is_null());
  EXPECT_TRUE(changes[1].from.is_null());
  EXPECT_EQ(changes[1].to["deviceIndex"], Json(2));
  // deleteOnTermination is behavioral: not part of what the node was launched with.
  EXPECT_FALSE(changes[0].from.contains("deleteOnTermination"));
}

// Seed 002's node class fields, from the field metadata ------------------------------------------

TEST(NodeClassFieldDriftTest, EveryStaticLeafDriftsAndNoOtherDoes) {
  const auto& ops = api::reflect::opsFor<EC2NodeClassSpec>();
  size_t statics = 0;
  size_t others = 0;
  for (const api::reflect::Leaf& leaf : api::reflect::leaves(ops)) {
    EC2NodeClass nc = resolvedNodeClass();
    nc.spec = EC2NodeClassSpec{};
    ops.sample(&nc.spec, nullptr, 0);
    const auto claim = launchedClaim(nc);
    void* value = api::reflect::resolveLeaf(ops, &nc.spec, leaf);
    ASSERT_NE(value, nullptr) << leaf.path;
    const Json before = leaf.type->encode(value);
    leaf.type->sample(value, leaf.field, 1);
    if (leaf.type->encode(value) == before) {
      continue;  // a single-valued enum or bound: no other value exists
    }
    const DriftCheck check = nodeClassDrift(claim, nc, runningInstance(), policy()).front();
    ASSERT_EQ(check.name, "NodeClass");
    if (leaf.drift != api::reflect::Drift::Static) {
      ++others;
      EXPECT_FALSE(check.drifted) << "spec." << leaf.path << " is not static but drifts";
      continue;
    }
    ++statics;
    EXPECT_TRUE(check.drifted) << "spec." << leaf.path << " is static but does not drift";
    EXPECT_EQ(check.reason, "NodeClassDrifted");
    // The snapshot stamped at launch decodes, so the change is named by its field.
    const std::string top = "spec." + leaf.path.substr(0, leaf.path.find_first_of(".["));
    ASSERT_FALSE(check.changes.empty()) << leaf.path << ": " << check.detail;
    for (const auto& change : check.changes) {
      EXPECT_TRUE(change.path == top || change.path.starts_with(top + ".") ||
                  change.path.starts_with(top + "["))
          << leaf.path << " reported as " << change.path;
    }
  }
  // Every kind of field was exercised: the metadata declares many of both.
  EXPECT_GT(statics, 40u);
  EXPECT_GE(others, 8u);
}

struct FieldCase {
  std::string name;
  std::function<void(EC2NodeClassSpec&)> change;
  std::string describe;  // describe(check); empty: not drifted
};

class NodeClassFieldDriftTest : public ::testing::TestWithParam<FieldCase> {};

TEST_P(NodeClassFieldDriftTest, NamesTheFieldAndBothValues) {
  const FieldCase& c = GetParam();
  auto checks = afterChange([&](EC2NodeClass& nc) { c.change(nc.spec); });
  const DriftCheck& check = checks.front();
  EXPECT_EQ(check.drifted, !c.describe.empty()) << describe(check);
  if (!c.describe.empty()) {
    EXPECT_EQ(describe(check), c.describe);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Seed002, NodeClassFieldDriftTest,
    ::testing::Values(
        // userData may hold secrets: the change shows by digest only.
        FieldCase{"UserData", [](auto& s) { s.userData = "echo bye"; },
                  "spec.userData: \"" + api::reflect::redacted("echo hello") + "\" -> \"" +
                      api::reflect::redacted("echo bye") + "\""},
        FieldCase{"Tags", [](auto& s) { s.tags["owner"] = "b"; },
                  R"(spec.tags[owner]: <absent> -> "b")"},
        FieldCase{"MetadataOptions", [](auto& s) { s.metadataOptions->httpTokens = "optional"; },
                  R"(spec.metadataOptions.httpTokens: "required" -> "optional")"},
        FieldCase{
            "BlockDeviceMappings",
            [](auto& s) {
              s.blockDeviceMappings[0].ebs->volumeSize = *core::Quantity::parse("40Gi");
            },
            R"(spec.blockDeviceMappings: [{"deviceName":"/dev/xvda","ebs":{"volumeSize":"20Gi","volumeType":"gp3"},"rootVolume":true}] -> [{"deviceName":"/dev/xvda","ebs":{"volumeSize":"40Gi","volumeType":"gp3"},"rootVolume":true}])"},
        FieldCase{"DetailedMonitoring", [](auto& s) { s.detailedMonitoring = true; },
                  "spec.detailedMonitoring: false -> true"},
        FieldCase{
            "InstanceProfile",
            [](auto& s) {
              s.role.clear();
              s.instanceProfile = "NodeProfile";
            },
            R"(spec.role: "KarpenterNodeRole" -> <absent>; spec.instanceProfile: <absent> -> "NodeProfile")"},
        FieldCase{"Role", [](auto& s) { s.role = "OtherRole"; },
                  R"(spec.role: "KarpenterNodeRole" -> "OtherRole")"},
        FieldCase{"AmiFamily", [](auto& s) { s.amiFamily = "Bottlerocket"; },
                  R"(spec.amiFamily: "AL2023" -> "Bottlerocket")"},
        FieldCase{"AmiSelectorTermsAreDynamic",
                  [](auto& s) { s.amiSelectorTerms[0].alias = "al2023@v20240807"; }, ""},
        FieldCase{"SubnetSelectorTermsAreDynamic",
                  [](auto& s) { s.subnetSelectorTerms[0].tags["zone"] = "a"; }, ""},
        FieldCase{"SecurityGroupSelectorTermsAreDynamic",
                  [](auto& s) { s.securityGroupSelectorTerms[0].name = "nodes"; }, ""},
        FieldCase{"CapacityReservationSelectorTermsAreDynamic",
                  [](auto& s) {
                    api::karpenter::CapacityReservationSelectorTerm term;
                    term.id = "cr-1";
                    s.capacityReservationSelectorTerms = {term};
                  },
                  ""}),
    [](const auto& info) { return info.param.name; });

// Hash versions ----------------------------------------------------------------------------------

TEST(NodeClassHashVersionTest, AClaimStampedUnderAnotherVersionIsReStampedNotDrifted) {
  EC2NodeClass nc = resolvedNodeClass();
  const auto claim = launchedClaim(nc, HashPolicy{"nw0", 0});
  nc.spec.userData = "changed since";
  const DriftCheck check = nodeClassDrift(claim, nc, runningInstance(), policy()).front();
  EXPECT_FALSE(check.drifted);
  EXPECT_EQ(check.detail, "stamped under hash version nw0, running nw1: re-stamped, not drift");
}

TEST(NodeClassHashVersionTest, AnUpgradeThatChangesEveryHashDriftsNothing) {
  const EC2NodeClass nc = resolvedNodeClass();
  const auto claim = launchedClaim(nc, policy());
  const HashPolicy upgraded{"nw2", 0x5eed};
  ASSERT_NE(api::karpenter::nodeClassHash(nc, upgraded),
            api::karpenter::nodeClassHash(nc, policy()));
  const auto checks = nodeClassDrift(claim, nc, runningInstance(), upgraded);
  EXPECT_EQ(drifted(checks), std::vector<std::string>{});
}

TEST(NodeClassHashVersionTest, AnUnchangedNodeClassPasses) {
  const EC2NodeClass nc = resolvedNodeClass();
  const auto checks = nodeClassDrift(launchedClaim(nc), nc, runningInstance(), policy());
  EXPECT_EQ(checks.front().detail, "unchanged");
  EXPECT_EQ(drifted(checks), std::vector<std::string>{});
}

TEST(NodeClassHashVersionTest, AClaimNeverStampedIsNotCompared) {
  EC2NodeClass nc = resolvedNodeClass();
  auto claim = launchedClaim(nc);
  claim.metadata.annotations.clear();
  nc.spec.userData = "changed since";
  const DriftCheck check = nodeClassDrift(claim, nc, runningInstance(), policy()).front();
  EXPECT_FALSE(check.drifted);
  EXPECT_EQ(check.detail, "not stamped with a hash: not compared");
}

TEST(NodeClassHashVersionTest, WithoutASnapshotTheDetailNamesTheHashes) {
  EC2NodeClass nc = resolvedNodeClass();
  auto claim = launchedClaim(nc);
  const std::string before = api::karpenter::nodeClassHash(nc, policy());
  claim.metadata.annotations.erase(api::karpenter::kNodeClassStaticAnnotation);
  nc.spec.userData = "changed since";
  const DriftCheck check = nodeClassDrift(claim, nc, runningInstance(), policy()).front();
  EXPECT_TRUE(check.drifted);
  EXPECT_TRUE(check.changes.empty());
  EXPECT_EQ(check.detail, "hash " + before + " -> " + api::karpenter::nodeClassHash(nc, policy()) +
                              " (launched without a field snapshot)");
}

}  // namespace
}  // namespace nodewright::cloud::aws::testing
