#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "api/karpenter/ec2nodeclass.h"
#include "api/karpenter/hashing.h"
#include "api/karpenter/nodeclaim.h"
#include "cloud/aws/drift/node_class_drift.h"

// Node classes, claims and instances for the pure drift tests: a node class resolved to two
// subnets, two security groups and three AMIs, and a claim launched from it that matches.
namespace nodewright::cloud::aws::testing {

inline constexpr const char* kAmd64 = "ami-0amd64";
inline constexpr const char* kArm64 = "ami-0arm64";
inline constexpr const char* kNvidia = "ami-0nvidia";
inline constexpr const char* kGpuCount = "karpenter.k8s.aws/instance-gpu-count";

inline api::karpenter::NetworkInterface interfaceAt(int device, int card = 0) {
  api::karpenter::NetworkInterface ni;
  ni.associateCarrierIPAddress = false;
  ni.associatePublicIPAddress = false;
  ni.deleteOnTermination = true;
  ni.description = "eth" + std::to_string(device);
  ni.deviceIndex = device;
  ni.interfaceType = "interface";
  ni.networkCardIndex = card;
  ni.ipv4PrefixCount = 1;
  ni.ipv6PrefixCount = 1;
  return ni;
}

inline api::karpenter::AMIStatus ami(const std::string& id, const std::string& arch,
                                     bool nvidia = false) {
  api::karpenter::AMIStatus a;
  a.id = id;
  a.name = id + "-name";
  if (nvidia) {
    a.requirements.push_back({kGpuCount, "Exists", {}});
  } else {
    a.requirements.push_back({"karpenter.k8s.aws/instance-accelerator-count", "DoesNotExist", {}});
    a.requirements.push_back({kGpuCount, "DoesNotExist", {}});
  }
  a.requirements.push_back({"kubernetes.io/arch", "In", {arch}});
  return a;
}

// Two interfaces (seed 001's fields all set), selectors, the other static fields, and a status
// resolved to subnet-a and subnet-b, sg-1 and sg-2, and the AMIs newest first: NVIDIA, amd64,
// arm64.
inline api::karpenter::EC2NodeClass resolvedNodeClass() {
  api::karpenter::EC2NodeClass nc;
  nc.metadata.name = "default";
  nc.metadata.uid = "uid-default";
  nc.metadata.generation = 1;
  api::karpenter::SubnetSelectorTerm subnets;
  subnets.tags = {{"karpenter.sh/discovery", "test"}};
  nc.spec.subnetSelectorTerms = {subnets};
  api::karpenter::SecurityGroupSelectorTerm groups;
  groups.tags = {{"karpenter.sh/discovery", "test"}};
  nc.spec.securityGroupSelectorTerms = {groups};
  api::karpenter::AMISelectorTerm alias;
  alias.alias = "al2023@latest";
  nc.spec.amiSelectorTerms = {alias};
  nc.spec.amiFamily = "AL2023";
  nc.spec.role = "KarpenterNodeRole";
  nc.spec.userData = "echo hello";
  nc.spec.tags = {{"team", "a"}};
  nc.spec.networkInterfaces = {interfaceAt(0), interfaceAt(1)};
  api::karpenter::MetadataOptions metadata;
  metadata.httpTokens = "required";
  metadata.httpPutResponseHopLimit = 1;
  nc.spec.metadataOptions = metadata;
  api::karpenter::BlockDeviceMapping root;
  root.deviceName = "/dev/xvda";
  root.rootVolume = true;
  api::karpenter::BlockDevice ebs;
  ebs.volumeSize = *core::Quantity::parse("20Gi");
  ebs.volumeType = "gp3";
  root.ebs = ebs;
  nc.spec.blockDeviceMappings = {root};
  nc.spec.detailedMonitoring = false;
  nc.status.subnets = {{"subnet-a", "us-east-1a", "use1-az1"}, {"subnet-b", "us-east-1b", ""}};
  nc.status.securityGroups = {{"sg-1", "nodes"}, {"sg-2", "extra"}};
  nc.status.amis = {ami(kNvidia, "amd64", true), ami(kAmd64, "amd64"), ami(kArm64, "arm64")};
  return nc;
}

// A claim launched from `nc` under `policy` on an amd64 type without GPUs, running kAmd64.
inline api::karpenter::NodeClaim launchedClaim(
    const api::karpenter::EC2NodeClass& nc,
    const api::karpenter::HashPolicy& policy = api::karpenter::defaultHashPolicy()) {
  api::karpenter::NodeClaim claim;
  claim.metadata.name = "claim-1";
  claim.metadata.labels = {{"kubernetes.io/arch", "amd64"},
                           {"node.kubernetes.io/instance-type", "m5.large"}};
  api::karpenter::stampNodeClass(nc, policy, claim.metadata.annotations);
  claim.spec.nodeClassRef = {"karpenter.k8s.aws", "EC2NodeClass", nc.metadata.name};
  claim.status.providerID = "aws:///us-east-1a/i-0123";
  claim.status.imageID = kAmd64;
  return claim;
}

// An instance in subnet-a with sg-2 and sg-1 on both interfaces, as EC2 reports it.
inline InstanceFacts runningInstance() {
  InstanceFacts facts;
  facts.instanceId = "i-0123";
  facts.imageId = kAmd64;
  facts.subnetId = "subnet-a";
  facts.securityGroupIds = {"sg-2", "sg-1"};
  for (int device : {0, 1}) {
    InterfaceFacts ni;
    ni.deviceIndex = device;
    ni.subnetId = "subnet-a";
    ni.securityGroupIds = {"sg-2", "sg-1"};
    facts.networkInterfaces.push_back(ni);
  }
  return facts;
}

inline std::vector<std::string> names(const std::vector<DriftCheck>& checks) {
  std::vector<std::string> out;
  for (const DriftCheck& c : checks) {
    out.push_back(c.name);
  }
  return out;
}

inline std::vector<std::string> drifted(const std::vector<DriftCheck>& checks) {
  std::vector<std::string> out;
  for (const DriftCheck& c : checks) {
    if (c.drifted) {
      out.push_back(c.name);
    }
  }
  return out;
}

inline std::vector<std::string> paths(const DriftCheck& check) {
  std::vector<std::string> out;
  for (const auto& change : check.changes) {
    out.push_back(change.path);
  }
  return out;
}

// The check named `name`; fails the test (and returns an empty check) when there is none.
inline DriftCheck find(const std::vector<DriftCheck>& checks, const std::string& name) {
  for (const DriftCheck& c : checks) {
    if (c.name == name) {
      return c;
    }
  }
  ADD_FAILURE() << "no check " << name;
  return {};
}

}  // namespace nodewright::cloud::aws::testing
