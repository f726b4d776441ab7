// The server keeps PodDisruptionBudget status as kube-controller-manager would, and the
// eviction subresource honours it.

#include <gtest/gtest.h>

#include "api/reflect/json.h"
#include "support/apiserver/test_server.h"

namespace nodewright::apiserver {
namespace {

using api::Json;

TEST(ApiServerDisruptionBudget, StatusFollowsPodsAndGuardsEvictions) {
  testing::TestApiServer server;
  auto client = server.client();
  const std::string pods = "/api/v1/namespaces/default/pods";
  for (const char* name : {"db-0", "db-1", "db-2"}) {
    Json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", name}, {"labels", {{"app", "db"}}}}},
                {"spec", {{"containers", {{{"name", "db"}, {"image", "postgres"}}}}}}};
    ASSERT_EQ(client->send("POST", pods, api::dumpJson(pod))->status, 201);
    Json ready = {
        {"status",
         {{"phase", "Running"}, {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
    auto patched = client->send("PATCH", pods + "/" + name + "/status", api::dumpJson(ready),
                                "application/merge-patch+json");
    ASSERT_EQ(patched->status, 200) << patched->body;
  }
  Json pdb = {{"apiVersion", "policy/v1"},
              {"kind", "PodDisruptionBudget"},
              {"metadata", {{"name", "db"}}},
              {"spec", {{"minAvailable", 2}, {"selector", {{"matchLabels", {{"app", "db"}}}}}}}};
  auto created = client->send("POST", "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
                              api::dumpJson(pdb));
  ASSERT_EQ(created->status, 201) << created->body;

  // Wait (on a watch) for the status the disruption controller computes.
  auto waitForAllowed = [&](int64_t allowed) {
    Json last;
    auto watcher = server.client();
    EXPECT_TRUE(watcher->stream(
        "/apis/policy/v1/namespaces/default/poddisruptionbudgets?watch=true&timeoutSeconds=30"
        "&fieldSelector=metadata.name%3Ddb",
        [&](std::string_view line) {
          last = Json::parse(line)["object"];
          const Json status = last.value("status", Json::object());
          return !(status.value("expectedPods", -1) == 3 &&
                   status.value("disruptionsAllowed", -1) == allowed);
        }));
    return last;
  };
  Json status = waitForAllowed(1)["status"];
  EXPECT_EQ(status["currentHealthy"], 3);
  EXPECT_EQ(status["desiredHealthy"], 2);
  EXPECT_EQ(status["conditions"][0]["type"], "DisruptionAllowed");
  EXPECT_EQ(status["conditions"][0]["status"], "True");

  Json eviction = {{"apiVersion", "policy/v1"},
                   {"kind", "Eviction"},
                   {"metadata", {{"name", "db-0"}, {"namespace", "default"}}}};
  auto first = client->send("POST", pods + "/db-0/eviction", api::dumpJson(eviction));
  EXPECT_EQ(first->status, 201) << first->body;
  eviction["metadata"]["name"] = "db-1";
  auto second = client->send("POST", pods + "/db-1/eviction", api::dumpJson(eviction));
  EXPECT_EQ(second->status, 429) << second->body;
  Json refused = Json::parse(second->body);
  EXPECT_EQ(refused["reason"], "TooManyRequests");
  EXPECT_EQ(refused["details"]["causes"][0]["reason"], "DisruptionBudget");
  EXPECT_EQ(client->send("GET", pods + "/db-1")->status, 200);
}

}  // namespace
}  // namespace nodewright::apiserver
