#include "kube/client.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <thread>

#include "api/core/pod.h"
#include "api/core/secret.h"
#include "api/karpenter/nodeclaim.h"
#include "http/server.h"
#include "support/apiserver/fixtures.h"
#include "support/apiserver/test_server.h"
#include "support/kube/objects.h"
#include "support/kube/rest_config.h"

namespace nodewright::kube {
namespace {

using api::corev1::ConfigMap;
using apiserver::testing::TestApiServer;
using testing::configMap;

class ClientTest : public ::testing::Test {
 protected:
  TestApiServer server_{apiserver::ApiServerOptions{.port = 0}};
  std::unique_ptr<Client> client_ = testing::clientFor(testing::restConfigFor(server_));
  Typed<ConfigMap> configMaps_{*client_};
};

TEST_F(ClientTest, CreateGetUpdateDeleteTyped) {
  auto created = configMaps_.create(configMap("a", {{"k", "v"}}));
  ASSERT_TRUE(created) << created.error().describe();
  EXPECT_FALSE(created->metadata.uid.empty());
  EXPECT_FALSE(created->metadata.resourceVersion.empty());

  auto got = configMaps_.get("default", "a");
  ASSERT_TRUE(got);
  EXPECT_EQ(got->data.at("k"), "v");

  got->data["k"] = "w";
  auto updated = configMaps_.update(*got);
  ASSERT_TRUE(updated) << updated.error().describe();
  EXPECT_EQ(updated->data.at("k"), "w");
  EXPECT_NE(updated->metadata.resourceVersion, got->metadata.resourceVersion);

  // The stale copy now conflicts.
  got->data["k"] = "x";
  auto stale = configMaps_.update(*got);
  ASSERT_FALSE(stale);
  EXPECT_EQ(stale.error().reason, Reason::Conflict);
  EXPECT_EQ(stale.error().code, 409);

  auto removed = configMaps_.remove("default", "a");
  ASSERT_TRUE(removed) << removed.error().describe();
  auto gone = configMaps_.get("default", "a");
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().reason, Reason::NotFound);
}

TEST_F(ClientTest, ClassifiesAlreadyExistsAndInvalidWithCauses) {
  ASSERT_TRUE(configMaps_.create(configMap("dup")));
  auto again = configMaps_.create(configMap("dup"));
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().reason, Reason::AlreadyExists);

  auto bad = configMaps_.create(configMap("Not_A_Valid_Name"));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().reason, Reason::Invalid);
  EXPECT_EQ(bad.error().code, 422);
  ASSERT_FALSE(bad.error().causes.empty());
  EXPECT_NE(bad.error().causes.front().find("metadata.name"), std::string::npos);
}

TEST_F(ClientTest, ListFollowsContinueTokens) {
  for (int i = 0; i < 23; ++i) {
    ASSERT_TRUE(configMaps_.create(configMap("page-" + std::to_string(i))));
  }
  ListOptions options;
  options.limit = 5;
  auto first = client_->listPage(configMaps_.kind(), "default", options);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->items.size(), 5u);
  EXPECT_FALSE(first->continueToken.empty());

  auto all = client_->list(configMaps_.kind(), "default", options);
  ASSERT_TRUE(all) << all.error().describe();
  // kube-root-ca.crt may or may not exist; the 23 are all there, each once.
  std::set<std::string> names;
  for (const auto& item : all->items) {
    names.insert(item.metadata().name);
  }
  EXPECT_EQ(names.size(), all->items.size());
  for (int i = 0; i < 23; ++i) {
    EXPECT_TRUE(names.count("page-" + std::to_string(i))) << i;
  }
  EXPECT_FALSE(all->resourceVersion.empty());

  ListOptions selected;
  selected.fieldSelector = "metadata.name=page-7";
  auto one = client_->list(configMaps_.kind(), "default", selected);
  ASSERT_TRUE(one);
  ASSERT_EQ(one->items.size(), 1u);
}

TEST_F(ClientTest, PatchMergeJsonAndApply) {
  ASSERT_TRUE(configMaps_.create(configMap("p", {{"a", "1"}})));
  auto merged = configMaps_.patch("default", "p", PatchType::Merge, R"({"data":{"b":"2"}})");
  ASSERT_TRUE(merged) << merged.error().describe();
  EXPECT_EQ(merged->data.size(), 2u);

  auto json =
      configMaps_.patch("default", "p", PatchType::Json, R"([{"op":"remove","path":"/data/a"}])");
  ASSERT_TRUE(json) << json.error().describe();
  EXPECT_EQ(json->data.count("a"), 0u);

  PatchOptions apply;
  apply.fieldManager = "nodewright-test";
  apply.force = true;
  auto applied = configMaps_.patch(
      "default", "applied", PatchType::Apply,
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  namespace: default\n"
      "data:\n  x: \"1\"\n",
      apply);
  ASSERT_TRUE(applied) << applied.error().describe();
  EXPECT_EQ(applied->data.at("x"), "1");

  auto broken = configMaps_.patch("default", "p", PatchType::Json, R"({"not":"a list"})");
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().reason, Reason::Invalid);
}

TEST_F(ClientTest, UpdateStatusOnlyTouchesStatus) {
  Typed<api::karpenter::NodeClaim> claims(*client_);
  auto decoded = client_->decode(apiserver::testing::nodeClaim(1));
  ASSERT_TRUE(decoded) << decoded.error().describe();
  auto created = claims.create(*decoded->as<api::karpenter::NodeClaim>());
  ASSERT_TRUE(created) << created.error().describe();

  auto claim = *created;
  claim.status.providerID = "aws:///us-west-2a/i-0123";
  claim.metadata.labels["changed"] = "yes";  // ignored by /status
  auto updated = claims.updateStatus(claim);
  ASSERT_TRUE(updated) << updated.error().describe();
  EXPECT_EQ(updated->status.providerID, "aws:///us-west-2a/i-0123");
  EXPECT_EQ(updated->metadata.labels.count("changed"), 0u);
}

TEST_F(ClientTest, DeletePreconditionsAndPropagation) {
  auto created = configMaps_.create(configMap("d"));
  ASSERT_TRUE(created);
  DeleteOptions wrongUid;
  wrongUid.preconditionUid = "not-the-uid";
  auto refused = configMaps_.remove("default", "d", wrongUid);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().reason, Reason::Conflict);

  // A finalizer holds the object: foreground deletion answers with the terminating object.
  auto held = configMap("held");
  held.metadata.finalizers = {"example.com/hold"};
  ASSERT_TRUE(configMaps_.create(held));
  DeleteOptions foreground;
  foreground.propagation = Propagation::Foreground;
  auto terminating = configMaps_.remove("default", "held", foreground);
  ASSERT_TRUE(terminating) << terminating.error().describe();
  ASSERT_TRUE(terminating->has_value());
  EXPECT_TRUE((*terminating)->metadata().deletionTimestamp.has_value());

  DeleteOptions right;
  right.preconditionUid = created->metadata.uid;
  auto removed = configMaps_.remove("default", "d", right);
  ASSERT_TRUE(removed) << removed.error().describe();
}

TEST_F(ClientTest, RequestsReuseConnections) {
  for (int i = 0; i < 40; ++i) {
    ASSERT_TRUE(configMaps_.get("default", "missing").error().is(Reason::NotFound));
  }
  EXPECT_LE(client_->connectionsOpened(), 2u);
}

TEST_F(ClientTest, ConcurrentUpdatesWithRetryLoseNothing) {
  ASSERT_TRUE(configMaps_.create(configMap("counter", {{"n", "0"}})));
  constexpr int kThreads = 4;
  constexpr int kEach = 25;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kEach; ++i) {
        auto result = updateWithRetry(
            *client_, configMaps_.kind(), "default", "counter",
            [](api::Object& o) {
              auto& data = o.as<ConfigMap>()->data;
              data["n"] = std::to_string(std::stoi(data["n"]) + 1);
              return true;
            },
            100);
        if (!result) {
          ++failures;
        }
      }
    });
  }
  for (auto& t : threads) {
    t.join();
  }
  EXPECT_EQ(failures.load(), 0);
  auto final = configMaps_.get("default", "counter");
  ASSERT_TRUE(final);
  EXPECT_EQ(final->data.at("n"), std::to_string(kThreads * kEach));
}

TEST_F(ClientTest, WatchStreamsEventsAndStopsOnRequest) {
  auto listed = client_->list(configMaps_.kind(), "default");
  ASSERT_TRUE(listed);
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::pair<WatchEventType, std::string>> seen;
  std::stop_source stop;
  ApiStatus result;
  std::thread watcher([&] {
    ListOptions options;
    options.resourceVersion = listed->resourceVersion;
    result = client_->watch(
        configMaps_.kind(), "default", options,
        [&](WatchEvent&& event) {
          std::lock_guard lock(mu);
          if (event.object) {
            seen.emplace_back(event.type, event.object->metadata().name);
          }
          cv.notify_all();
          return true;
        },
        stop.get_token());
  });
  ASSERT_TRUE(configMaps_.create(configMap("w1")));
  ASSERT_TRUE(configMaps_.patch("default", "w1", PatchType::Merge, R"({"data":{"a":"b"}})"));
  ASSERT_TRUE(configMaps_.remove("default", "w1"));
  {
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return seen.size() >= 3; }));
  }
  stop.request_stop();  // cuts the stream short at once
  watcher.join();
  EXPECT_TRUE(result);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0], std::make_pair(WatchEventType::Added, std::string("w1")));
  EXPECT_EQ(seen[1], std::make_pair(WatchEventType::Modified, std::string("w1")));
  EXPECT_EQ(seen[2], std::make_pair(WatchEventType::Deleted, std::string("w1")));
}

TEST_F(ClientTest, WatchFromACompactedVersionIsGone) {
  ListOptions options;
  options.resourceVersion = "1";
  // The history holds 10,000 events; push the first ones out of a small server instead.
  TestApiServer small(apiserver::ApiServerOptions{.port = 0, .watchHistory = 5});
  auto client = testing::clientFor(testing::restConfigFor(small));
  Typed<ConfigMap> cms(*client);
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(cms.create(configMap("old-" + std::to_string(i))));
  }
  std::optional<ApiError> error;
  auto status = client->watch(cms.kind(), "default", options, [&](WatchEvent&& event) {
    if (event.error) {
      error = event.error;
    }
    return false;
  });
  bool gone = (!status && status.error().is(Reason::Gone)) || (error && error->is(Reason::Gone));
  EXPECT_TRUE(gone);
}

TEST(ClientUnauthorized, WrongTokenIsUnauthorized) {
  TestApiServer server(apiserver::ApiServerOptions{.port = 0});
  auto config = testing::restConfigFor(server);
  config.bearerToken = "wrong";
  config.bearerTokenFile.clear();
  auto client = testing::clientFor(config);
  auto result = Typed<ConfigMap>(*client).get("default", "x");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().reason, Reason::Unauthorized);
  EXPECT_EQ(result.error().code, 401);
}

TEST(ClientUnauthorized, UnknownCertificateAuthorityIsRefused) {
  TestApiServer server(apiserver::ApiServerOptions{.port = 0});
  TestApiServer other(apiserver::ApiServerOptions{.port = 0});
  auto config = testing::restConfigFor(server);
  config.caPem = other.caPem();
  auto client = testing::clientFor(config);
  auto result = Typed<ConfigMap>(*client).get("default", "x");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().reason, Reason::Unavailable);

  config.insecureSkipTlsVerify = true;
  config.caPem.clear();
  auto insecure = testing::clientFor(config);
  auto again = Typed<ConfigMap>(*insecure).get("default", "x");
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().reason, Reason::NotFound);
}

// Answers the server cannot be made to give on demand: throttling and a hung server.
class ScriptedServer {
 public:
  explicit ScriptedServer(http::Handler handler) {
    http::ServerOptions options;
    server_ = std::move(*http::startServer(options, std::move(handler)));
  }
  RestConfig config() const {
    RestConfig c;
    c.server = "http://127.0.0.1:" + std::to_string(server_->port());
    return c;
  }
  ~ScriptedServer() { server_->stop(); }

 private:
  std::unique_ptr<http::Server> server_;
};

TEST(ClientErrors, TooManyRequestsCarriesRetryAfter) {
  ScriptedServer server([](const http::Request&, http::Exchange& exchange) {
    exchange.respond(http::Response{
        429,
        "application/json",
        R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"slow down","reason":"TooManyRequests","code":429})",
        {{"Retry-After", "7"}}});
  });
  auto client = testing::clientFor(server.config());
  auto result = Typed<ConfigMap>(*client).get("default", "x");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().reason, Reason::TooManyRequests);
  ASSERT_TRUE(result.error().retryAfter);
  EXPECT_EQ(*result.error().retryAfter, std::chrono::seconds(7));
  EXPECT_TRUE(result.error().transient());
  EXPECT_EQ(result.error().message, "slow down");
}

TEST(ClientErrors, AHungServerTimesOut) {
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  ScriptedServer server([&](const http::Request&, http::Exchange& exchange) {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return release; });
    exchange.respond(http::Response{200, "application/json", "{}", {}});
  });
  auto config = server.config();
  config.timeout = std::chrono::milliseconds(200);
  auto client = testing::clientFor(config);
  auto result = Typed<ConfigMap>(*client).get("default", "x");
  {
    std::lock_guard lock(mu);
    release = true;
    cv.notify_all();
  }
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().reason, Reason::Timeout);
}

TEST(ClientErrors, ServerGoneIsUnavailable) {
  RestConfig config;
  {
    ScriptedServer server([](const http::Request&, http::Exchange& e) {
      e.respond(http::Response{200, "application/json", "{}", {}});
    });
    config = server.config();
  }
  auto client = testing::clientFor(config);
  auto result = Typed<ConfigMap>(*client).get("default", "x");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().reason, Reason::Unavailable);
  EXPECT_TRUE(result.error().transient());
}

TEST(ClientErrors, StatusReasonsMapToMeanings) {
  EXPECT_EQ(classify(404, "", "").reason, Reason::NotFound);
  EXPECT_EQ(classify(409, R"({"kind":"Status","reason":"AlreadyExists","message":"x"})", "").reason,
            Reason::AlreadyExists);
  EXPECT_EQ(classify(409, R"({"kind":"Status","reason":"Conflict","message":"x"})", "").reason,
            Reason::Conflict);
  EXPECT_EQ(classify(410, "", "").reason, Reason::Gone);
  EXPECT_EQ(classify(422, "", "").reason, Reason::Invalid);
  EXPECT_EQ(classify(401, "", "").reason, Reason::Unauthorized);
  EXPECT_EQ(classify(403, "", "").reason, Reason::Forbidden);
  EXPECT_EQ(classify(504, "", "").reason, Reason::Timeout);
  EXPECT_EQ(classify(500, R"({"kind":"Status","reason":"Timeout","message":"x"})", "").reason,
            Reason::Timeout);
  EXPECT_EQ(classify(503, "", "").reason, Reason::ServerError);
  EXPECT_EQ(classify(429, "", "3").retryAfter, std::chrono::seconds(3));
  EXPECT_FALSE(classify(429, "", "Wed, 21 Oct 2015 07:28:00 GMT").retryAfter);
}

TEST(ClientRateLimit, QpsSpacesRequestsOut) {
  TestApiServer server(apiserver::ApiServerOptions{.port = 0});
  auto config = testing::restConfigFor(server);
  config.qps = 40;
  config.burst = 1;
  auto client = testing::clientFor(config);
  Typed<ConfigMap> cms(*client);
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 21; ++i) {
    (void)cms.get("default", "x");
  }
  // 20 requests beyond the burst at 40 qps cannot finish in under half a second.
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(450));
}

}  // namespace
}  // namespace nodewright::kube

namespace nodewright::kube {
namespace {

// Every kind of the resource model has a working path: listing (all namespaces and one) and a
// get of a missing object answer as the server defines, not 404 for the collection.
TEST(ClientEveryKind, ListsAndGetsEveryRegisteredKind) {
  TestApiServer server;
  auto client = testing::clientFor(testing::restConfigFor(server));
  size_t kinds = 0;
  for (const auto& kind : client->registry().kinds()) {
    ++kinds;
    auto all = client->list(kind, "");
    ASSERT_TRUE(all) << kind.apiVersion() << " " << kind.kind << ": " << all.error().describe();
    if (kind.namespaced) {
      auto one = client->listPage(kind, "default", {});
      ASSERT_TRUE(one) << kind.kind << ": " << one.error().describe();
    }
    auto missing = client->get(kind, kind.namespaced ? "default" : "", "no-such-object");
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().reason, Reason::NotFound) << kind.kind;
  }
  EXPECT_GE(kinds, 27u);  // core, apps, policy, coordination, karpenter, seed-era, CAPI, CAPZ
}

}  // namespace
}  // namespace nodewright::kube
