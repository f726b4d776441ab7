// Reads and deletes against the EC2 emulator: batched get and remove, list by ownership, and
// garbage collection of instances no NodeClaim knows.
#include <gtest/gtest.h>

#include <thread>

#include "cloud/aws/instance/instance_fixture.h"
#include "cloud/aws/instance/instance_provider.h"

namespace nodewright::cloud::aws {
namespace {

using namespace std::chrono_literals;

class InstanceLookupTest : public testing::InstanceProviderFixture {
 protected:
  std::string launched(const std::string& name) {
    auto instance = launch(claim(name));
    EXPECT_TRUE(instance) << instance.error().message();
    return instance ? instance->instanceId : "";
  }

  // An instance outside Karpenter's ownership: plain RunInstances with no tags.
  std::string foreignInstance() {
    auto response =
        peer_.wire().call("RunInstances", {{"ImageId", resolved_.images.at(0).id},
                                           {"InstanceType", "t3.medium"},
                                           {"MinCount", "1"},
                                           {"MaxCount", "1"},
                                           {"SubnetId", resolved_.subnets.at(0).subnetId}});
    EXPECT_TRUE(response && response->status == 200) << (response ? response->body : "");
    return response ? response->firstText("instanceId") : "";
  }

  std::string state(const std::string& id) {
    auto got = instances_->get(id);
    return got ? got->state : std::string(core::codeName(got.error().code()));
  }

  static std::vector<std::string> ids(const std::vector<sdk::Instance>& instances) {
    std::vector<std::string> out;
    for (const auto& i : instances) {
      out.push_back(i.instanceId);
    }
    std::sort(out.begin(), out.end());
    return out;
  }
};

TEST_F(InstanceLookupTest, ConcurrentGetsShareOneDescribeInstances) {
  const std::vector<std::string> launchedIds = {launched("a"), launched("b"), launched("c")};
  InstanceProviderOptions batched = immediate();
  batched.describeBatch = {100ms, 1000ms, 500};
  auto provider = this->provider(batched);
  const size_t before = peer_.sentRequests("DescribeInstances").size();

  std::vector<core::Result<sdk::Instance>> answers(launchedIds.size(),
                                                   core::fail(core::Error::internal("unset")));
  std::vector<std::thread> threads;
  for (size_t i = 0; i < launchedIds.size(); ++i) {
    threads.emplace_back([&, i] { answers[i] = provider->get(launchedIds[i]); });
  }
  while (provider->describeWaitingForTest() < launchedIds.size()) {
    std::this_thread::yield();
  }
  clock_.advance(100ms);
  for (auto& t : threads) {
    t.join();
  }
  EXPECT_EQ(peer_.sentRequests("DescribeInstances").size() - before, 1u);
  EXPECT_EQ(provider->describeBatchesForTest(), 1u);
  for (size_t i = 0; i < launchedIds.size(); ++i) {
    ASSERT_TRUE(answers[i]) << answers[i].error().message();
    EXPECT_EQ(answers[i]->instanceId, launchedIds[i]);  // each caller its own instance
  }
}

TEST_F(InstanceLookupTest, AnUnknownIdIsNotFoundWithoutFailingItsBatch) {
  const std::string known = launched("a");
  InstanceProviderOptions batched = immediate();
  batched.describeBatch = {100ms, 1000ms, 500};
  auto provider = this->provider(batched);
  core::Result<sdk::Instance> good = core::fail(core::Error::internal("unset"));
  core::Result<sdk::Instance> bad = core::fail(core::Error::internal("unset"));
  std::thread t1([&] { good = provider->get(known); });
  std::thread t2([&] { bad = provider->get("i-0123456789abcdef0"); });
  while (provider->describeWaitingForTest() < 2) {
    std::this_thread::yield();
  }
  clock_.advance(100ms);
  t1.join();
  t2.join();
  ASSERT_TRUE(good) << good.error().message();
  EXPECT_EQ(good->instanceId, known);
  ASSERT_FALSE(bad);
  EXPECT_TRUE(bad.error().is(core::Code::NotFound)) << bad.error().message();
}

TEST_F(InstanceLookupTest, RemoveTerminatesThenTheInstanceIsNotFound) {
  const std::string id = launched("a");
  ASSERT_TRUE(instances_->remove(id));
  EXPECT_EQ(state(id), "shutting-down");
  clock_.advance(1s);  // a minute and more of emulated time: terminated
  EXPECT_EQ(state(id), "NotFound");
  auto again = instances_->remove(id);
  ASSERT_FALSE(again);
  EXPECT_TRUE(again.error().is(core::Code::NotFound)) << again.error().message();
  auto unknown = instances_->remove("i-0123456789abcdef0");
  ASSERT_FALSE(unknown);
  EXPECT_TRUE(unknown.error().is(core::Code::NotFound)) << unknown.error().message();
}

TEST_F(InstanceLookupTest, ListsOnlyThisClustersLiveInstances) {
  const std::string a = launched("a");
  const std::string b = launched("b");
  const std::string foreign = foreignInstance();
  auto listed = instances_->list();
  ASSERT_TRUE(listed) << listed.error().message();
  std::vector<std::string> want = {a, b};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(ids(*listed), want);

  ASSERT_TRUE(instances_->remove(b));
  clock_.advance(1s);
  listed = instances_->list();
  ASSERT_TRUE(listed) << listed.error().message();
  EXPECT_EQ(ids(*listed), std::vector<std::string>{a});
}

TEST_F(InstanceLookupTest, GarbageCollectsOnlyUnknownOwnedInstancesPastTheGrace) {
  auto a = launch(claim("a"));
  ASSERT_TRUE(a) << a.error().message();
  const std::string orphan = launched("orphan");
  const std::string foreign = foreignInstance();
  const std::set<std::string> known = {providerID(a->availabilityZone, a->instanceId),
                                       "not-a-provider-id"};

  clock_.advance(10s);
  auto young = instances_->garbageCollect(known, clock_.now());
  ASSERT_TRUE(young) << young.error().message();
  EXPECT_TRUE(young->empty());  // inside the grace period, its claim may still be writing it

  clock_.advance(25s);
  auto collected = instances_->garbageCollect(known, clock_.now());
  ASSERT_TRUE(collected) << collected.error().message();
  EXPECT_EQ(ids(*collected), std::vector<std::string>{orphan});
  EXPECT_EQ(state(orphan), "shutting-down");
  EXPECT_NE(state(a->instanceId), "shutting-down");
  EXPECT_NE(state(foreign), "shutting-down");

  // Already on its way out: not collected twice.
  auto again = instances_->garbageCollect(known, clock_.now());
  ASSERT_TRUE(again) << again.error().message();
  EXPECT_TRUE(again->empty());
}

}  // namespace
}  // namespace nodewright::cloud::aws
