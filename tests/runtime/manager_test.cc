#include "runtime/manager.h"

#include <gtest/gtest.h>

#include <thread>

#include "api/core/secret.h"
#include "runtime/client_metrics.h"
#include "support/apiserver/test_server.h"
#include "support/kube/objects.h"
#include "support/kube/rest_config.h"
#include "support/runtime/scrape.h"

namespace nodewright::runtime {
namespace {

using api::corev1::ConfigMap;
using apiserver::testing::TestApiServer;
using kube::testing::eventually;

class Counting : public Reconciler {
 public:
  Outcome reconcile(const Request&, Context&) override {
    ++count;
    return Result::done();
  }
  std::atomic<int> count{0};
};

ManagerOptions withEndpoints(Registry& registry) {
  ManagerOptions options;
  options.metrics = &registry;
  EndpointsOptions metrics;
  metrics.serveHealth = false;
  EndpointsOptions health;
  health.serveMetrics = false;
  options.metricsEndpoint = metrics;
  options.healthEndpoint = health;
  return options;
}

TEST(Manager, MetricsParseAsPrometheusTextAndRealCountersMove) {
  TestApiServer server;
  Registry registry;
  auto config = kube::testing::restConfigFor(server);
  auto observer = clientMetrics(registry, config.server);
  kube::ClientOptions clientOptions;
  clientOptions.observer = observer.get();
  auto client = std::move(*kube::Client::create(config, clientOptions));

  Manager manager(*client, withEndpoints(registry));
  Counting reconciler;
  manager.addController("configmaps", reconciler).watchFor(manager.informerFor<ConfigMap>());
  std::stop_source stop;
  std::thread run([&] { EXPECT_TRUE(manager.run(stop.get_token())); });
  ASSERT_TRUE(eventually([&] { return manager.cachesSynced(); }));

  kube::Typed<ConfigMap> cms(*client);
  for (int i = 0; i < 5; ++i) {
    ConfigMap cm;
    cm.apiVersion = "v1";
    cm.kind = "ConfigMap";
    cm.metadata.name = "m" + std::to_string(i);
    cm.metadata.namespace_ = "default";
    ASSERT_TRUE(cms.create(cm));
  }
  ASSERT_TRUE(eventually([&] { return reconciler.count >= 5; }));

  ASSERT_TRUE(manager.metricsPort());
  auto scraped = testing::fetch(*manager.metricsPort(), "/metrics");
  ASSERT_EQ(scraped.status, 200) << scraped.error;
  auto families = testing::parseWithPrometheus(scraped.body);
  auto value = [&](const std::string& family, const std::string& sample,
                   const nlohmann::json& labels) {
    auto* f = testing::findFamily(families, family);
    EXPECT_NE(f, nullptr) << family;
    return f ? testing::sampleValue(*f, sample, labels) : 0.0;
  };
  EXPECT_GE(value("controller_runtime_reconcile", "controller_runtime_reconcile_total",
                  {{"controller", "configmaps"}, {"result", "success"}}),
            5);
  EXPECT_GE(
      value("controller_runtime_reconcile_time_seconds",
            "controller_runtime_reconcile_time_seconds_count", {{"controller", "configmaps"}}),
      5);
  EXPECT_GE(value("workqueue_adds", "workqueue_adds_total",
                  {{"name", "configmaps"}, {"controller", "configmaps"}}),
            5);
  EXPECT_GE(value("workqueue_queue_duration_seconds", "workqueue_queue_duration_seconds_count",
                  {{"name", "configmaps"}, {"controller", "configmaps"}}),
            5);
  std::string host = config.server.substr(config.server.find("://") + 3);
  EXPECT_GE(value("rest_client_requests", "rest_client_requests_total",
                  {{"code", "201"}, {"method", "POST"}, {"host", host}}),
            5);
  EXPECT_GE(value("rest_client_request_duration_seconds",
                  "rest_client_request_duration_seconds_count", {{"verb", "LIST"}, {"host", host}}),
            1);

  auto ready = testing::fetch(*manager.healthPort(), "/readyz?verbose");
  EXPECT_EQ(ready.status, 200);
  EXPECT_NE(ready.body.find("[+]informers-synced ok"), std::string::npos) << ready.body;
  stop.request_stop();
  run.join();
}

// A stop requested before run() (or while it starts) ends it at once: a stop callback
// registered while holding the lock it takes used to deadlock here.
TEST(Manager, RunReturnsWhenStopWasRequestedBeforeItStarted) {
  TestApiServer server;
  auto client = kube::testing::clientFor(kube::testing::restConfigFor(server));
  Manager manager(*client, ManagerOptions{});
  Counting reconciler;
  manager.addController("configmaps", reconciler).watchFor(manager.informerFor<ConfigMap>());
  std::stop_source stop;
  stop.request_stop();
  EXPECT_TRUE(manager.run(stop.get_token()));
  EXPECT_EQ(reconciler.count, 0);
}

TEST(Manager, NotReadyUntilTheCachesSync) {
  TestApiServer server;
  auto client = kube::testing::clientFor(kube::testing::restConfigFor(server));
  server.stop();  // the caches cannot sync until it is back
  Registry registry;
  auto options = withEndpoints(registry);
  options.informerDefaults.backoffBase = std::chrono::milliseconds(20);
  options.informerDefaults.backoffMax = std::chrono::milliseconds(100);
  Manager manager(*client, options);
  Counting reconciler;
  manager.addController("configmaps", reconciler).watchFor(manager.informerFor<ConfigMap>());
  std::stop_source stop;
  std::thread run([&] { EXPECT_TRUE(manager.run(stop.get_token())); });
  ASSERT_TRUE(eventually([&] { return manager.healthPort().has_value(); }));
  auto notReady = testing::fetch(*manager.healthPort(), "/readyz");
  EXPECT_EQ(notReady.status, 500);
  EXPECT_NE(notReady.body.find("[-]informers-synced failed"), std::string::npos) << notReady.body;
  EXPECT_EQ(testing::fetch(*manager.healthPort(), "/healthz").status, 200);

  server.restart();
  EXPECT_TRUE(
      eventually([&] { return testing::fetch(*manager.healthPort(), "/readyz").status == 200; }));
  stop.request_stop();
  run.join();
}

}  // namespace
}  // namespace nodewright::runtime
