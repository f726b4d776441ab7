#include "runtime/coalescing.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

#include "core/clock.h"

namespace nodewright::runtime {
namespace {

using namespace std::chrono_literals;

// Counts its reconciles and answers what the test tells it to.
class CountingReconciler final : public Reconciler {
 public:
  Outcome reconcile(const Request& request, Context&) override {
    ++calls[request.key()];
    return next;
  }

  std::map<std::string, int> calls;
  Outcome next = Result::done();
};

class CoalescingReconcilerTest : public ::testing::Test {
 protected:
  Outcome reconcile(CoalescingReconciler& reconciler, const std::string& name) {
    Context context(clock_, clock_.steadyNow() + 1min, {}, logger_, name);
    return reconciler.reconcile(Request{"default", name}, context);
  }

  CoalescingReconciler make(std::chrono::milliseconds window) {
    return CoalescingReconciler(inner_, clock_, window, [this](const Request& request) {
      auto it = objects_.find(request.name);
      return it == objects_.end() ? std::nullopt : std::optional<ObjectVersion>(it->second);
    });
  }

  int callsOf(const std::string& name) { return inner_.calls[Request{"default", name}.key()]; }

  core::FakeClock clock_;
  std::shared_ptr<spdlog::logger> logger_ =
      std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::null_sink_mt>());
  CountingReconciler inner_;
  std::map<std::string, ObjectVersion> objects_ = {{"a", {1, false, ""}}, {"b", {1, false, ""}}};
};

TEST_F(CoalescingReconcilerTest, DefersRepeatsWithinTheWindowToItsEnd) {
  auto reconciler = make(10s);
  ASSERT_TRUE(reconcile(reconciler, "a"));
  clock_.advance(3s);
  auto repeat = reconcile(reconciler, "a");
  ASSERT_TRUE(repeat);
  EXPECT_EQ(callsOf("a"), 1);
  EXPECT_FALSE(repeat->requeue);
  EXPECT_EQ(repeat->requeueAfter, 7s);
  EXPECT_EQ(reconciler.deferred(), 1u);
}

TEST_F(CoalescingReconcilerTest, RunsAgainOnceTheWindowEnded) {
  auto reconciler = make(10s);
  ASSERT_TRUE(reconcile(reconciler, "a"));
  clock_.advance(10s);
  ASSERT_TRUE(reconcile(reconciler, "a"));
  EXPECT_EQ(callsOf("a"), 2);
  EXPECT_EQ(reconciler.deferred(), 0u);
}

TEST_F(CoalescingReconcilerTest, KeysHaveTheirOwnWindows) {
  auto reconciler = make(10s);
  ASSERT_TRUE(reconcile(reconciler, "a"));
  ASSERT_TRUE(reconcile(reconciler, "b"));
  EXPECT_EQ(callsOf("a"), 1);
  EXPECT_EQ(callsOf("b"), 1);
}

TEST_F(CoalescingReconcilerTest, ASpecChangeIsNeverDeferred) {
  auto reconciler = make(10s);
  ASSERT_TRUE(reconcile(reconciler, "a"));
  objects_["a"].generation = 2;
  ASSERT_TRUE(reconcile(reconciler, "a"));
  EXPECT_EQ(callsOf("a"), 2);
  // The new generation opened a window of its own.
  ASSERT_TRUE(reconcile(reconciler, "a"));
  EXPECT_EQ(callsOf("a"), 2);
}

TEST_F(CoalescingReconcilerTest, ADeleteIsNeverDeferred) {
  auto reconciler = make(10s);
  ASSERT_TRUE(reconcile(reconciler, "a"));
  objects_["a"].deleting = true;
  ASSERT_TRUE(reconcile(reconciler, "a"));
  EXPECT_EQ(callsOf("a"), 2);
}

TEST_F(CoalescingReconcilerTest, AnAdoptionIsNeverDeferred) {
  auto reconciler = make(10s);
  ASSERT_TRUE(reconcile(reconciler, "a"));  // waited for its owner: done, nothing requeued
  api::ObjectMeta meta;
  meta.generation = 1;
  const ObjectVersion before = versionOf(meta);
  meta.ownerReferences.push_back({"cluster.x-k8s.io/v1beta1", "Machine", "a", "uid-1", true, {}});
  objects_["a"] = versionOf(meta);
  EXPECT_NE(objects_["a"], before);
  ASSERT_TRUE(reconcile(reconciler, "a"));
  EXPECT_EQ(callsOf("a"), 2);
  EXPECT_EQ(reconciler.deferred(), 0u);
}

TEST(ObjectVersionTest, OwnersLabelsAndAnnotationsCountStatusWritesDoNot) {
  api::ObjectMeta meta;
  meta.generation = 3;
  const ObjectVersion base = versionOf(meta);
  api::ObjectMeta written = meta;
  written.resourceVersion = "42";  // what a status write changes
  EXPECT_EQ(versionOf(written), base);
  api::ObjectMeta labelled = meta;
  labelled.labels["cluster.x-k8s.io/cluster-name"] = "prod";
  EXPECT_NE(versionOf(labelled), base);
  api::ObjectMeta paused = meta;
  paused.annotations["cluster.x-k8s.io/paused"] = "";
  EXPECT_NE(versionOf(paused), base);
}

TEST_F(CoalescingReconcilerTest, AnObjectGoneFromTheCacheIsReconciled) {
  auto reconciler = make(10s);
  ASSERT_TRUE(reconcile(reconciler, "a"));
  objects_.erase("a");
  ASSERT_TRUE(reconcile(reconciler, "a"));
  EXPECT_EQ(callsOf("a"), 2);
}

TEST_F(CoalescingReconcilerTest, WorkInProgressAndErrorsOpenNoWindow) {
  auto reconciler = make(10s);
  inner_.next = Result::waiting(1s);
  ASSERT_TRUE(reconcile(reconciler, "a"));
  ASSERT_TRUE(reconcile(reconciler, "a"));
  inner_.next = Result::again();
  ASSERT_TRUE(reconcile(reconciler, "a"));
  ASSERT_TRUE(reconcile(reconciler, "a"));
  inner_.next = core::fail(core::Error::invalid("boom"));
  EXPECT_FALSE(reconcile(reconciler, "a"));
  EXPECT_FALSE(reconcile(reconciler, "a"));
  EXPECT_EQ(callsOf("a"), 6);
  EXPECT_EQ(reconciler.deferred(), 0u);
}

TEST_F(CoalescingReconcilerTest, AZeroWindowPassesEverythingThrough) {
  auto reconciler = make(0ms);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(reconcile(reconciler, "a"));
  }
  EXPECT_EQ(callsOf("a"), 3);
}

}  // namespace
}  // namespace nodewright::runtime
