#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>

#include "api/karpenter/ec2nodeclass.h"
#include "api/karpenter/hashing.h"
#include "api/karpenter/nodeclaim.h"
#include "api/karpenter/nodepool.h"
#include "api/karpenter/well_known.h"
#include "core/clock.h"
#include "kube/client.h"
#include "runtime/manager.h"
#include "support/apiserver/test_server.h"
#include "support/kube/objects.h"
#include "support/kube/rest_config.h"

// The NodePool and EC2NodeClass controllers in a Manager against the embedded API server. The
// API server outlives managers, so a test stops one manager and starts another with a different
// hash policy: an upgrade of nodewright over a running fleet. The nodeclass tests share it.
namespace nodewright::controllers::testing {

using api::karpenter::EC2NodeClass;
using api::karpenter::HashPolicy;
using api::karpenter::NodeClaim;
using api::karpenter::NodePool;
using kube::testing::eventually;
using Annotations = std::map<std::string, std::string>;

// Stands in for an upgrade that changed how hashes are computed.
inline HashPolicy upgradedPolicy() {
  HashPolicy policy;
  policy.version = "nw-next";
  policy.salt = 0x5eed;
  return policy;
}

inline std::string annotation(const Annotations& annotations, const std::string& key) {
  auto it = annotations.find(key);
  return it == annotations.end() ? "" : it->second;
}

class ControllersEnv : public ::testing::Test {
 protected:
  using Setup = std::function<std::shared_ptr<void>(runtime::Manager&)>;

  void TearDown() override { stop(); }

  // A Manager running what `setup` registers (it returns what must live as long as the
  // manager runs).
  void start(const Setup& setup) {
    runtime::ManagerOptions options;
    options.clock = &clock_;
    options.metrics = &registry_;
    manager_ = std::make_unique<runtime::Manager>(*client_, options);
    owned_ = setup(*manager_);
    runner_ = std::jthread([this](std::stop_token stop) { (void)manager_->run(stop); });
    ASSERT_TRUE(eventually([this] { return manager_->cachesSynced(); }));
  }
  void stop() {
    if (runner_.joinable()) {
      runner_.request_stop();
      runner_.join();
    }
    manager_.reset();
    owned_.reset();
  }

  NodePool createPool(const std::string& name, const std::string& nodeClass = "default") {
    NodePool pool;
    pool.apiVersion = "karpenter.sh/v1";
    pool.kind = "NodePool";
    pool.metadata.name = name;
    pool.spec.template_.spec.nodeClassRef = {"karpenter.k8s.aws", "EC2NodeClass", nodeClass};
    auto created = pools_.create(pool);
    EXPECT_TRUE(created) << created.error().describe();
    return created.value_or(pool);
  }
  EC2NodeClass createNodeClass(const std::string& name) {
    EC2NodeClass nodeClass;
    nodeClass.apiVersion = "karpenter.k8s.aws/v1";
    nodeClass.kind = "EC2NodeClass";
    nodeClass.metadata.name = name;
    api::karpenter::SubnetSelectorTerm subnets;
    subnets.tags = {{"karpenter.sh/discovery", "nodewright"}};
    nodeClass.spec.subnetSelectorTerms = {subnets};
    api::karpenter::SecurityGroupSelectorTerm groups;
    groups.tags = {{"karpenter.sh/discovery", "nodewright"}};
    nodeClass.spec.securityGroupSelectorTerms = {groups};
    api::karpenter::AMISelectorTerm ami;
    ami.alias = "al2023@latest";
    nodeClass.spec.amiSelectorTerms = {ami};
    nodeClass.spec.role = "KarpenterNodeRole-nodewright";
    nodeClass.spec.tags = {{"team", "a"}};
    auto created = nodeClasses_.create(nodeClass);
    EXPECT_TRUE(created) << created.error().describe();
    return created.value_or(nodeClass);
  }
  // A claim of `pool`, launched from `nodeClass`, stamped by the provisioner with `annotations`.
  NodeClaim createClaim(const std::string& name, const std::string& pool,
                        const std::string& nodeClass, const Annotations& annotations) {
    NodeClaim claim;
    claim.apiVersion = api::karpenter::kNodeClaimApiVersion;
    claim.kind = "NodeClaim";
    claim.metadata.name = name;
    claim.metadata.labels[api::karpenter::kNodePoolLabel] = pool;
    claim.metadata.annotations = annotations;
    claim.spec.nodeClassRef = {"karpenter.k8s.aws", "EC2NodeClass", nodeClass};
    auto created = claims_.create(claim);
    EXPECT_TRUE(created) << created.error().describe();
    return created.value_or(claim);
  }

  template <class T>
  T stored(kube::Typed<T>& typed, const std::string& name) {
    auto got = typed.get("", name);
    EXPECT_TRUE(got) << name << ": " << got.error().describe();
    return got.value_or(T{});
  }
  NodePool pool(const std::string& name) { return stored(pools_, name); }
  EC2NodeClass nodeClass(const std::string& name) { return stored(nodeClasses_, name); }
  NodeClaim claim(const std::string& name) { return stored(claims_, name); }

  // Re-reads and changes an object until the write does not conflict.
  template <class T>
  void mutate(kube::Typed<T>& typed, const std::string& name, const std::function<void(T&)>& edit,
              bool status = false) {
    for (int attempt = 0; attempt < 20; ++attempt) {
      auto got = typed.get("", name);
      ASSERT_TRUE(got) << got.error().describe();
      edit(*got);
      auto written = status ? typed.updateStatus(*got) : typed.update(*got);
      if (written) {
        return;
      }
      ASSERT_TRUE(written.error().is(kube::Reason::Conflict)) << written.error().describe();
    }
    FAIL() << name << " kept conflicting";
  }
  void setCondition(const std::string& claimName, const std::string& type,
                    const std::string& status) {
    mutate<NodeClaim>(
        claims_, claimName,
        [&](NodeClaim& c) {
          api::Condition condition;
          condition.type = type;
          condition.status = status;
          condition.reason = type;
          condition.lastTransitionTime = core::Time(clock_.now());
          c.status.conditions.push_back(condition);
        },
        true);
  }

  // Waits until the stored object's annotation `key` is `value`.
  template <class T>
  bool awaitAnnotation(kube::Typed<T>& typed, const std::string& name, const std::string& key,
                       const std::string& value) {
    return eventually([&] {
      auto got = typed.get("", name);
      return got && annotation(got->metadata.annotations, key) == value;
    });
  }

  core::FakeClock clock_{core::systemClock().now()};
  runtime::Registry registry_;
  apiserver::testing::TestApiServer apiServer_;
  std::unique_ptr<kube::Client> client_ =
      kube::testing::clientFor(kube::testing::restConfigFor(apiServer_));
  kube::Typed<NodePool> pools_{*client_};
  kube::Typed<EC2NodeClass> nodeClasses_{*client_};
  kube::Typed<NodeClaim> claims_{*client_};
  std::unique_ptr<runtime::Manager> manager_;
  std::shared_ptr<void> owned_;
  std::jthread runner_;
};

}  // namespace nodewright::controllers::testing
