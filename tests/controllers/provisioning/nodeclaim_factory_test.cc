#include "controllers/provisioning/nodeclaim_factory.h"

#include <gtest/gtest.h>

namespace nodewright::controllers::provisioning {
namespace {

api::karpenter::NodePool pool() {
  api::karpenter::NodePool p;
  p.apiVersion = "karpenter.sh/v1";
  p.metadata.name = "default";
  p.metadata.uid = "uid-1";
  auto& t = p.spec.template_;
  t.metadata.labels = {{"team", "web"}};
  t.metadata.annotations = {{"example.com/owner", "web"}};
  api::karpenter::Taint taint;
  taint.key = "dedicated";
  taint.value = "web";
  taint.effect = "NoSchedule";
  t.spec.taints.push_back(taint);
  taint.key = "node.cilium.io/agent-not-ready";
  taint.effect = "NoExecute";
  t.spec.startupTaints.push_back(taint);
  t.spec.nodeClassRef = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
  t.spec.expireAfter = core::Duration::parse("720h").value();
  return p;
}

TEST(NodeClaimFactoryTest, TheClaimCarriesTheTemplateThePlanAndItsOwner) {
  scheduling::NewNodeClaim planned;
  planned.nodePool = "default";
  planned.requirements = {{"topology.kubernetes.io/zone", "In", {"us-east-1b"}, std::nullopt},
                          {"node.kubernetes.io/instance-type", "In", {"m5.large", "c5.large"}, 2},
                          {"karpenter.sh/capacity-type", "NotIn", {"spot"}, std::nullopt}};
  planned.requests = {{"cpu", core::Quantity::parse("1500m").value()}};
  planned.instanceTypes = {"c5.large", "m5.large"};

  const api::karpenter::HashPolicy policy{"nw1", 0};
  const api::karpenter::NodeClaim claim = makeNodeClaim(pool(), planned, policy);
  EXPECT_EQ(claim.metadata.generateName, "default-");
  EXPECT_EQ(claim.metadata.labels,
            (std::map<std::string, std::string>{{"karpenter.sh/nodepool", "default"},
                                                {"team", "web"},
                                                {"topology.kubernetes.io/zone", "us-east-1b"}}));
  EXPECT_EQ(claim.metadata.annotations.at("example.com/owner"), "web");
  // Stamped with the template's drift hash, its version and what it covered.
  EXPECT_EQ(claim.metadata.annotations.at(api::karpenter::kNodePoolHashAnnotation),
            api::karpenter::nodePoolHash(pool(), policy));
  EXPECT_EQ(claim.metadata.annotations.at(api::karpenter::kNodePoolHashVersionAnnotation), "nw1");
  EXPECT_EQ(api::Json::parse(claim.metadata.annotations.at(
                api::karpenter::kNodePoolStaticAnnotation))["metadata"]["labels"]["team"],
            "web");
  ASSERT_EQ(claim.metadata.ownerReferences.size(), 1u);
  EXPECT_EQ(claim.metadata.ownerReferences[0].kind, "NodePool");
  EXPECT_EQ(claim.metadata.ownerReferences[0].uid, "uid-1");
  EXPECT_EQ(claim.metadata.ownerReferences[0].blockOwnerDeletion, true);
  EXPECT_EQ(claim.spec.requirements.size(), 3u);
  EXPECT_EQ(claim.spec.requirements[1].minValues, 2);
  EXPECT_EQ(claim.spec.taints.size(), 1u);
  EXPECT_EQ(claim.spec.startupTaints.size(), 1u);
  EXPECT_EQ(claim.spec.nodeClassRef.name, "default");
  EXPECT_EQ(claim.spec.expireAfter, pool().spec.template_.spec.expireAfter);
  EXPECT_EQ(claim.spec.resources.requests.at("cpu").milliValue(), 1500);
}

}  // namespace
}  // namespace nodewright::controllers::provisioning
