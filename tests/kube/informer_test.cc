#include "kube/informer.h"

#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <map>
#include <mutex>
#include <thread>

#include "api/core/pod.h"
#include "api/core/secret.h"
#include "support/apiserver/process.h"
#include "support/apiserver/test_server.h"
#include "support/kube/objects.h"
#include "support/kube/rest_config.h"

namespace nodewright::kube {
namespace {

using api::corev1::ConfigMap;
using apiserver::testing::TestApiServer;
using testing::eventually;

std::string dataOf(const api::Object& object, const std::string& key) {
  auto* cm = object.as<ConfigMap>();
  auto it = cm->data.find(key);
  return it == cm->data.end() ? "" : it->second;
}

// What the handlers were told, kept like a controller would keep it.
struct Recorder {
  std::mutex mu;
  std::vector<std::string> log;              // "add c1 v1", "update c1 v1->v2", "delete c1 v2"
  std::map<std::string, std::string> state;  // key -> resourceVersion, from handlers only

  EventHandler handler() {
    return EventHandler{
        [this](const api::Object& o) {
          std::lock_guard lock(mu);
          log.push_back("add " + o.metadata().name + " " + dataOf(o, "k"));
          state[keyOf(o)] = o.metadata().resourceVersion;
        },
        [this](const api::Object& before, const api::Object& after) {
          std::lock_guard lock(mu);
          log.push_back("update " + after.metadata().name + " " + dataOf(before, "k") + "->" +
                        dataOf(after, "k"));
          state[keyOf(after)] = after.metadata().resourceVersion;
        },
        [this](const api::Object& last) {
          std::lock_guard lock(mu);
          log.push_back("delete " + last.metadata().name + " " + dataOf(last, "k"));
          state.erase(keyOf(last));
        },
    };
  }
  bool saw(const std::string& line) {
    std::lock_guard lock(mu);
    return std::find(log.begin(), log.end(), line) != log.end();
  }
  std::map<std::string, std::string> snapshot() {
    std::lock_guard lock(mu);
    return state;
  }
};

ConfigMap configMap(const std::string& name, const std::string& k) {
  return testing::configMap(name, {{"k", k}});
}

InformerOptions inDefault(const core::Clock* clock = nullptr) {
  InformerOptions options;
  options.ns = "default";
  options.clock = clock;
  return options;
}

std::map<std::string, std::string> versionsOf(const std::vector<api::Object>& objects) {
  std::map<std::string, std::string> out;
  for (const auto& o : objects) {
    out[keyOf(o)] = o.metadata().resourceVersion;
  }
  return out;
}

// A stop already requested ends the wait at once (its callback runs inline; it used to deadlock
// on the informer's lock).
TEST(Informer, WaitForSyncReturnsAtOnceWhenStopWasRequested) {
  TestApiServer server;
  auto client = testing::clientFor(testing::restConfigFor(server));
  server.stop();  // the cache cannot sync
  Informer informer(*client, kindOf<ConfigMap>(), inDefault());
  informer.start();
  std::stop_source stop;
  stop.request_stop();
  EXPECT_FALSE(informer.waitForSync(std::chrono::minutes(10), stop.get_token()));
  informer.stop();
}

TEST(Informer, CacheFollowsKubectlAndHandlersSeeOldAndNew) {
  TestApiServer server;
  auto client = testing::clientFor(testing::restConfigFor(server));
  Recorder recorder;
  Informer informer(*client, kindOf<ConfigMap>(), inDefault());
  informer.addHandler(recorder.handler());
  informer.start();
  ASSERT_TRUE(informer.waitForSync(std::chrono::seconds(10)));

  auto run = [&](std::vector<std::string> args) {
    auto ran = apiserver::testing::kubectl(server, args);
    ASSERT_EQ(ran.code, 0) << ran.err;
  };
  run({"create", "configmap", "c1", "--from-literal=k=v1"});
  ASSERT_TRUE(eventually([&] { return recorder.saw("add c1 v1"); }));
  run({"patch", "configmap", "c1", "--type=merge", "-p", R"({"data":{"k":"v2"}})"});
  ASSERT_TRUE(eventually([&] { return recorder.saw("update c1 v1->v2"); }));
  ASSERT_TRUE(eventually([&] {
    auto cached = informer.cache().get("default/c1");
    return cached && dataOf(*cached, "k") == "v2";
  }));
  run({"delete", "configmap", "c1"});
  ASSERT_TRUE(eventually([&] { return recorder.saw("delete c1 v2"); }));
  EXPECT_FALSE(informer.cache().get("default/c1"));

  auto listed = client->list(kindOf<ConfigMap>(), "default");
  ASSERT_TRUE(listed);
  EXPECT_EQ(versionsOf(informer.cache().list()), versionsOf(listed->items));
  EXPECT_TRUE(eventually([&] { return recorder.snapshot() == versionsOf(listed->items); }));
}

TEST(Informer, IndexesByNamespaceOwnerNodeAndCustom) {
  TestApiServer server;
  auto client = testing::clientFor(testing::restConfigFor(server));
  Informer informer(*client, kindOf<api::corev1::Pod>());
  informer.addIndex("app", [](const api::Object& o) {
    auto labels = o.metadata().labels;
    auto it = labels.find("app");
    return it == labels.end() ? std::vector<std::string>{} : std::vector<std::string>{it->second};
  });
  informer.start();
  ASSERT_TRUE(informer.waitForSync(std::chrono::seconds(10)));

  for (int i = 0; i < 4; ++i) {
    auto pod = api::Json{{"apiVersion", "v1"},
                         {"kind", "Pod"},
                         {"metadata",
                          {{"name", "p" + std::to_string(i)},
                           {"namespace", "default"},
                           {"labels", {{"app", i % 2 ? "odd" : "even"}}},
                           {"ownerReferences",
                            {{{"apiVersion", "apps/v1"},
                              {"kind", "ReplicaSet"},
                              {"name", "rs"},
                              {"uid", "uid-rs"},
                              {"controller", true}}}}}},
                         {"spec",
                          {{"nodeName", i < 3 ? "node-a" : "node-b"},
                           {"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}};
    auto decoded = client->decode(pod);
    ASSERT_TRUE(decoded);
    ASSERT_TRUE(client->create(*decoded));
  }
  ASSERT_TRUE(eventually([&] { return informer.cache().size() == 4; }));
  EXPECT_EQ(informer.cache().byIndex(kByNodeName, "node-a").size(), 3u);
  EXPECT_EQ(informer.cache().byIndex(kByNodeName, "node-b").size(), 1u);
  EXPECT_EQ(informer.cache().byIndex(kByOwner, "uid-rs").size(), 4u);
  EXPECT_EQ(informer.cache().byIndex(kByNamespace, "default").size(), 4u);
  EXPECT_EQ(informer.cache().byIndex("app", "odd").size(), 2u);

  // Re-filed when the indexed value changes.
  ASSERT_TRUE(client->patch(kindOf<api::corev1::Pod>(), "default", "p0", PatchType::Merge,
                            R"({"metadata":{"labels":{"app":"odd"}}})"));
  ASSERT_TRUE(eventually([&] { return informer.cache().byIndex("app", "odd").size() == 3; }));
  EXPECT_EQ(informer.cache().byIndex("app", "even").size(), 1u);
}

TEST(Informer, ResyncRedeliversEveryObjectOnTheClock) {
  TestApiServer server;
  auto client = testing::clientFor(testing::restConfigFor(server));
  Typed<ConfigMap> cms(*client);
  ASSERT_TRUE(cms.create(configMap("r", "same")));

  core::FakeClock clock;
  auto options = inDefault(&clock);
  options.resyncPeriod = std::chrono::seconds(30);
  Recorder recorder;
  Informer informer(*client, kindOf<ConfigMap>(), options);
  informer.addHandler(recorder.handler());
  informer.start();
  ASSERT_TRUE(informer.waitForSync(std::chrono::seconds(10)));
  EXPECT_FALSE(recorder.saw("update r same->same"));
  clock.advance(std::chrono::seconds(31));
  EXPECT_TRUE(eventually([&] { return recorder.saw("update r same->same"); }));
}

TEST(Informer, BookmarksAdvanceTheResourceVersion) {
  TestApiServer server(
      apiserver::ApiServerOptions{.bookmarkInterval = std::chrono::milliseconds(50)});
  auto client = testing::clientFor(testing::restConfigFor(server));
  Informer informer(*client, kindOf<ConfigMap>());
  informer.start();
  ASSERT_TRUE(informer.waitForSync(std::chrono::seconds(10)));
  EXPECT_TRUE(eventually([&] { return informer.stats().bookmarks >= 2; }));
}

TEST(Informer, RelistsWhenTheResumeVersionIsGone) {
  TestApiServer server(apiserver::ApiServerOptions{.watchHistory = 5});
  auto client = testing::clientFor(testing::restConfigFor(server));
  Typed<ConfigMap> cms(*client);
  auto make = [](const std::string& name) { return configMap(name, name); };
  ASSERT_TRUE(cms.create(make("before")));

  // The informer's backoff waits on a fake clock, so it stays down until the test lets it.
  core::FakeClock clock;
  Recorder recorder;
  Informer informer(*client, kindOf<ConfigMap>(), inDefault(&clock));
  informer.addHandler(recorder.handler());
  informer.start();
  ASSERT_TRUE(informer.waitForSync(std::chrono::seconds(10)));
  ASSERT_TRUE(eventually([&] { return informer.stats().watches >= 1; }));

  server.stop();
  ASSERT_TRUE(eventually([&] { return informer.stats().failures >= 1; }));
  server.restart();
  // More changes than the server's history keeps, so resuming is impossible.
  ASSERT_TRUE(cms.remove("default", "before"));
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(cms.create(make("after-" + std::to_string(i))));
  }

  auto listed = client->list(kindOf<ConfigMap>(), "default");
  ASSERT_TRUE(listed);
  auto expected = versionsOf(listed->items);
  ASSERT_TRUE(eventually([&] {
    clock.advance(std::chrono::seconds(1));
    return versionsOf(informer.cache().list()) == expected;
  }));
  // Handlers run right after the cache changes, on the informer's thread.
  EXPECT_TRUE(eventually([&] { return recorder.snapshot() == expected; }));
  EXPECT_GE(informer.stats().gone, 1u);
  EXPECT_GE(informer.stats().lists, 2u);
  // The deletion was only seen by the relist: the handler got the cached last state.
  EXPECT_TRUE(recorder.saw("delete before before"));
}

uint16_t freePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

// The acceptance test: the API server process is killed with SIGKILL while objects change and
// the informer streams; after a restart nothing final is missed, checked against a LIST.
TEST(Informer, ResumesAfterTheApiServerIsKilledMidStream) {
  apiserver::testing::TempDir dir;
  const std::string listen = "127.0.0.1:" + std::to_string(freePort());
  auto startServer = [&] {
    auto child = std::make_unique<apiserver::testing::Child>(
        std::vector<std::string>{NW_BINARY, "apiserver", "--data-dir", dir.path().string(),
                                 "--listen", listen, "--watch-history", "50"});
    EXPECT_NE(child->waitForLine("listening on", std::chrono::seconds(20)), "");
    return child;
  };
  auto server = startServer();
  auto config = testing::restConfigFromDataDir(dir.path().string());
  config.timeout = std::chrono::seconds(2);
  auto client = testing::clientFor(config);
  Typed<ConfigMap> cms(*client);

  auto options = inDefault();
  options.backoffBase = std::chrono::milliseconds(20);
  options.backoffMax = std::chrono::milliseconds(200);
  Recorder recorder;
  Informer informer(*client, kindOf<ConfigMap>(), options);
  informer.addHandler(recorder.handler());
  informer.start();
  ASSERT_TRUE(informer.waitForSync(std::chrono::seconds(10)));

  // A writer creating, updating and deleting objects; failures while the server is down are
  // simply retried with the next operation.
  std::atomic<int> done{0};
  std::atomic<bool> stopWriting{false};
  std::thread writer([&] {
    for (int i = 0; !stopWriting; ++i) {
      std::string name = "obj-" + std::to_string(i % 40);
      auto cm = configMap(name, std::to_string(i));
      bool ok = false;
      switch (i % 3) {
        case 0:
          ok = cms.create(cm).has_value();
          break;
        case 1:
          ok = cms.patch("default", name, PatchType::Merge,
                         R"({"data":{"k":")" + std::to_string(i) + R"("}})")
                   .has_value();
          break;
        default:
          ok = cms.remove("default", "obj-" + std::to_string((i / 2) % 40)).has_value();
      }
      if (ok) {
        ++done;
      }
    }
  });
  ASSERT_TRUE(eventually([&] { return done >= 150; }));
  server->kill(SIGKILL);
  server->wait(std::chrono::seconds(10));
  int atKill = done;
  server = startServer();
  ASSERT_TRUE(eventually([&] { return done >= atKill + 150; }, std::chrono::seconds(60)));
  stopWriting = true;
  writer.join();

  auto listed = client->list(kindOf<ConfigMap>(), "default");
  ASSERT_TRUE(listed) << listed.error().describe();
  auto expected = versionsOf(listed->items);
  EXPECT_TRUE(eventually([&] { return versionsOf(informer.cache().list()) == expected; }));
  EXPECT_TRUE(eventually([&] { return recorder.snapshot() == expected; }));
  EXPECT_GE(informer.stats().watches, 2u);
}

}  // namespace
}  // namespace nodewright::kube
