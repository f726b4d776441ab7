#include "runtime/controller.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "api/core/pod.h"
#include "api/core/secret.h"
#include "runtime/manager.h"
#include "runtime/metrics.h"
#include "support/apiserver/test_server.h"
#include "support/kube/objects.h"
#include "support/kube/rest_config.h"

namespace nodewright::runtime {
namespace {

using api::corev1::ConfigMap;
using apiserver::testing::TestApiServer;
using kube::testing::configMap;
using kube::testing::eventually;

// Counts reconciles per key and answers with whatever the test scripted for that key.
class ScriptedReconciler : public Reconciler {
 public:
  Outcome reconcile(const Request& request, Context& context) override {
    std::function<Outcome(Context&)> script;
    {
      std::lock_guard lock(mu_);
      ++counts_[request.key()];
      if (auto it = scripts_.find(request.key()); it != scripts_.end()) {
        script = it->second;
      }
    }
    return script ? script(context) : Outcome(Result::done());
  }
  int count(const std::string& key) {
    std::lock_guard lock(mu_);
    return counts_[key];
  }
  void script(const std::string& key, std::function<Outcome(Context&)> fn) {
    std::lock_guard lock(mu_);
    scripts_[key] = std::move(fn);
  }

 private:
  std::mutex mu_;
  std::map<std::string, int> counts_;
  std::map<std::string, std::function<Outcome(Context&)>> scripts_;
};

class ControllerTest : public ::testing::Test {
 protected:
  TestApiServer server_;
  std::unique_ptr<kube::Client> client_ =
      kube::testing::clientFor(kube::testing::restConfigFor(server_));
  kube::Typed<ConfigMap> configMaps_{*client_};
  core::FakeClock clock_;
  Registry metrics_;
  ScriptedReconciler reconciler_;
};

TEST_F(ControllerTest, ReconcilesEveryObjectAndRequeuesAfterOnTheClock) {
  kube::InformerOptions options;
  options.ns = "default";
  kube::Informer informer(*client_, kube::kindOf<ConfigMap>(), options);
  ControllerOptions copts;
  copts.workers = 2;
  Controller controller("configmaps", reconciler_, clock_, copts, &metrics_);
  controller.watchFor(informer);
  reconciler_.script("default/later",
                     [](Context&) { return Outcome(Result::after(std::chrono::seconds(30))); });
  informer.start();
  ASSERT_TRUE(informer.waitForSync(std::chrono::seconds(10)));
  std::stop_source stop;
  controller.start(stop.get_token());

  for (const char* name : {"a", "b", "later"}) {
    ASSERT_TRUE(configMaps_.create(configMap(name)));
  }
  ASSERT_TRUE(eventually([&] {
    return reconciler_.count("default/a") == 1 && reconciler_.count("default/b") == 1 &&
           reconciler_.count("default/later") == 1;
  }));
  // The requeue is parked only once the reconcile has returned; the clock moves after that.
  ASSERT_TRUE(eventually([&] { return controller.queue().delayedLength() == 1u; }));
  clock_.advance(std::chrono::seconds(29));
  EXPECT_EQ(reconciler_.count("default/later"), 1);
  clock_.advance(std::chrono::seconds(2));
  EXPECT_TRUE(eventually([&] { return reconciler_.count("default/later") == 2; }));

  // An update is one more reconcile of that key only.
  ASSERT_TRUE(configMaps_.patch("default", "a", kube::PatchType::Merge, R"({"data":{"x":"y"}})"));
  EXPECT_TRUE(eventually([&] { return reconciler_.count("default/a") == 2; }));
  EXPECT_EQ(reconciler_.count("default/b"), 1);
  stop.request_stop();
  informer.stop();  // its handlers feed the controller, which goes first
  controller.stop();
  EXPECT_GE(metrics_.counter("controller_runtime_reconcile_total", "", {"controller", "result"})
                .with({"configmaps", "success"})
                .value(),
            3);  // a twice, b once
  EXPECT_GE(metrics_.counter("controller_runtime_reconcile_total", "", {"controller", "result"})
                .with({"configmaps", "requeue_after"})
                .value(),
            1);
}

TEST_F(ControllerTest, OwnedObjectsEnqueueTheirOwner) {
  kube::Informer pods(*client_, kube::kindOf<api::corev1::Pod>());
  Controller controller("replicasets", reconciler_, clock_, {}, &metrics_);
  controller.watchOwned(pods, "ReplicaSet");
  pods.start();
  ASSERT_TRUE(pods.waitForSync(std::chrono::seconds(10)));
  std::stop_source stop;
  controller.start(stop.get_token());

  auto pod = [&](const std::string& name, const std::string& ownerKind, bool isController) {
    api::Json json = {{"apiVersion", "v1"},
                      {"kind", "Pod"},
                      {"metadata",
                       {{"name", name},
                        {"namespace", "default"},
                        {"ownerReferences",
                         {{{"apiVersion", "apps/v1"},
                           {"kind", ownerKind},
                           {"name", "web"},
                           {"uid", "u1"},
                           {"controller", isController}}}}}},
                      {"spec", {{"containers", {{{"name", "c"}, {"image", "nginx"}}}}}}};
    auto decoded = client_->decode(json);
    ASSERT_TRUE(decoded);
    ASSERT_TRUE(client_->create(*decoded));
  };
  pod("web-1", "ReplicaSet", true);
  pod("other", "DaemonSet", true);
  pod("not-controlled", "ReplicaSet", false);
  ASSERT_TRUE(eventually([&] { return pods.cache().size() == 3; }));
  EXPECT_TRUE(eventually([&] { return reconciler_.count("default/web") == 1; }));
  // Only the controller reference of the right kind maps; nothing else was reconciled.
  EXPECT_EQ(reconciler_.count("default/web-1"), 0);
  EXPECT_EQ(reconciler_.count("default/other"), 0);
  pods.stop();  // its handlers feed the controller, which goes first
  controller.stop();
}

TEST_F(ControllerTest, ErrorsBackOffExponentiallyAndSuccessForgets) {
  Controller controller("flaky", reconciler_, clock_, {}, &metrics_);
  std::atomic<int> failuresLeft{3};
  reconciler_.script("default/x", [&](Context&) -> Outcome {
    if (failuresLeft-- > 0) {
      return core::fail(core::Error::internal("cloud said no"));
    }
    return Result::done();
  });
  std::stop_source stop;
  controller.start(stop.get_token());
  controller.enqueue({"default", "x"});
  // 5 ms, then 10 ms, then 20 ms: nothing happens before each delay has passed. Each round waits
  // until the failed key is parked, so its due time is taken before the clock moves.
  for (int i = 1; i <= 3; ++i) {
    ASSERT_TRUE(eventually([&] {
      return reconciler_.count("default/x") == i && controller.queue().failures("default/x") == i &&
             controller.queue().delayedLength() == 1;
    }));
    auto delay = std::chrono::milliseconds(5 << (i - 1));
    clock_.advance(delay - std::chrono::microseconds(100));
    EXPECT_EQ(reconciler_.count("default/x"), i);
    clock_.advance(std::chrono::microseconds(100));
  }
  ASSERT_TRUE(eventually([&] { return reconciler_.count("default/x") == 4; }));
  ASSERT_TRUE(eventually([&] { return controller.queue().failures("default/x") == 0; }));
  controller.stop();
  EXPECT_EQ(metrics_.counter("controller_runtime_reconcile_errors_total", "", {"controller"})
                .with({"flaky"})
                .value(),
            3);
}

TEST_F(ControllerTest, AReconcilePastItsDeadlineIsCancelledAndRetried) {
  ControllerOptions options;
  options.reconcileTimeout = std::chrono::seconds(10);
  Controller controller("slow", reconciler_, clock_, options, &metrics_);
  std::atomic<bool> sawCancel{false};
  reconciler_.script("default/slow", [&](Context& context) -> Outcome {
    if (reconciler_.count("default/slow") > 1) {
      return Result::done();
    }
    while (!context.cancelled()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    sawCancel = context.remaining().count() == 0;
    return Result::done();
  });
  std::stop_source stop;
  controller.start(stop.get_token());
  controller.enqueue({"default", "slow"});
  ASSERT_TRUE(eventually([&] { return reconciler_.count("default/slow") == 1; }));
  clock_.advance(std::chrono::seconds(11));
  ASSERT_TRUE(eventually([&] {
    return controller.queue().failures("default/slow") == 1 &&
           controller.queue().delayedLength() == 1;
  }));
  EXPECT_TRUE(sawCancel);
  clock_.advance(std::chrono::milliseconds(5));
  EXPECT_TRUE(eventually([&] { return reconciler_.count("default/slow") == 2; }));
  controller.stop();
}

TEST_F(ControllerTest, AClosedGateReconcilesNothing) {
  ControllerOptions options;
  std::atomic<bool> open{false};
  options.gate = [&] { return open.load(); };
  Controller controller("gated", reconciler_, clock_, options, &metrics_);
  // The reconcile sees the same gate through its context (the fence between read and write).
  std::atomic<int> leadingSeen{-1};
  reconciler_.script("default/g", [&](Context& context) -> Outcome {
    leadingSeen = context.leading();
    open = false;
    leadingSeen = leadingSeen * 2 + context.leading();
    return Result::done();
  });
  std::stop_source stop;
  controller.start(stop.get_token());
  controller.enqueue({"default", "g"});
  ASSERT_TRUE(eventually([&] { return controller.queue().delayedLength() == 1; }));
  EXPECT_EQ(reconciler_.count("default/g"), 0);
  open = true;
  clock_.advance(std::chrono::seconds(1));
  EXPECT_TRUE(eventually([&] { return reconciler_.count("default/g") == 1; }));
  controller.stop();
  EXPECT_EQ(leadingSeen, 2);  // leading when it started, not after the gate closed
}

// Two managers (two clients, as two controllers in different processes would be) increment the
// same object; every write that conflicts is retried by requeueing, and none is lost.
class Incrementer : public Reconciler {
 public:
  Incrementer(kube::Client& client, std::string field, int target)
      : configMaps_(client), field_(std::move(field)), target_(target) {}

  Outcome reconcile(const Request& request, Context&) override {
    auto current = configMaps_.get(request.ns, request.name);
    if (!current) {
      return core::fail(current.error().toError());
    }
    auto& data = current->data;
    int mine = data.count(field_) ? std::stoi(data[field_]) : 0;
    if (mine >= target_) {
      return Result::done();
    }
    data[field_] = std::to_string(mine + 1);
    data["total"] = std::to_string((data.count("total") ? std::stoi(data["total"]) : 0) + 1);
    auto updated = configMaps_.update(*current);
    if (!updated) {
      if (updated.error().is(kube::Reason::Conflict)) {
        ++conflicts;
      }
      return core::fail(updated.error().toError());
    }
    return Result::after(std::chrono::nanoseconds(1));
  }
  std::atomic<int> conflicts{0};

 private:
  kube::Typed<ConfigMap> configMaps_;
  std::string field_;
  int target_;
};

TEST(ControllerConflicts, TwoControllersUpdatingOneObjectLoseNoWrite) {
  TestApiServer server;
  auto config = kube::testing::restConfigFor(server);
  auto clientA = kube::testing::clientFor(config);
  auto clientB = kube::testing::clientFor(config);
  constexpr int kEach = 40;
  Incrementer a(*clientA, "a", kEach);
  Incrementer b(*clientB, "b", kEach);
  Registry metricsA, metricsB;
  ManagerOptions optionsA, optionsB;
  optionsA.metrics = &metricsA;
  optionsB.metrics = &metricsB;
  Manager managerA(*clientA, optionsA);
  Manager managerB(*clientB, optionsB);
  managerA.addController("a", a).watchFor(managerA.informerFor<ConfigMap>());
  managerB.addController("b", b).watchFor(managerB.informerFor<ConfigMap>());
  std::stop_source stop;
  std::thread runA([&] { EXPECT_TRUE(managerA.run(stop.get_token())); });
  std::thread runB([&] { EXPECT_TRUE(managerB.run(stop.get_token())); });

  ASSERT_TRUE(kube::Typed<ConfigMap>(*clientA).create(configMap("shared")));
  kube::Typed<ConfigMap> cms(*clientA);
  bool finished = eventually(
      [&] {
        auto cm = cms.get("default", "shared");
        return cm && cm->data.count("total") && cm->data.at("total") == std::to_string(2 * kEach);
      },
      std::chrono::seconds(60));
  stop.request_stop();
  runA.join();
  runB.join();
  ASSERT_TRUE(finished);
  auto final = cms.get("default", "shared");
  ASSERT_TRUE(final);
  EXPECT_EQ(final->data.at("a"), std::to_string(kEach));
  EXPECT_EQ(final->data.at("b"), std::to_string(kEach));
  // The race was real: at least one write lost it and was retried.
  EXPECT_GT(a.conflicts + b.conflicts, 0);
}

}  // namespace
}  // namespace nodewright::runtime
