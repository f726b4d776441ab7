// Restart durability of the real binary: every acknowledged write survives kill -9 with its
// resourceVersion, and watches from before the crash resume or get 410.

#include <signal.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "http/client.h"
#include "support/apiserver/fixtures.h"
#include "support/apiserver/process.h"
#include "support/apiserver/test_server.h"

namespace nodewright::apiserver {
namespace {

using api::Json;
using namespace std::chrono_literals;

struct RunningServer {
  std::unique_ptr<testing::Child> child;
  uint16_t port = 0;
};

RunningServer startBinary(const std::string& dataDir) {
  RunningServer s;
  s.child = std::make_unique<testing::Child>(std::vector<std::string>{
      NW_BINARY, "apiserver", "--data-dir", dataDir, "--listen", "127.0.0.1:0"});
  std::string line = s.child->waitForLine("listening on https://127.0.0.1:", 60s);
  if (!line.empty()) {
    s.port = static_cast<uint16_t>(std::stoi(line.substr(line.rfind(':') + 1)));
  }
  return s;
}

std::unique_ptr<http::Client> clientFor(const std::string& dataDir, uint16_t port) {
  http::ClientOptions options;
  options.port = port;
  options.caPem = testing::readFile(dataDir + "/pki/ca.crt");
  options.token = testing::readFile(dataDir + "/pki/token");
  auto client = http::connectClient(options);
  return client ? std::move(*client) : nullptr;
}

TEST(ApiServerDurability, AcknowledgedWritesSurviveKill9) {
  testing::TempDir dir;
  const std::string dataDir = dir.path().string();
  auto server = startBinary(dataDir);
  ASSERT_NE(server.port, 0) << "the server did not start";

  auto probe = clientFor(dataDir, server.port);
  ASSERT_TRUE(probe);
  auto before = probe->send("GET", "/apis/karpenter.sh/v1/nodeclaims");
  ASSERT_TRUE(before);
  const std::string startRv = Json::parse(before->body)["metadata"]["resourceVersion"];

  constexpr size_t kWanted = 10000;
  constexpr int kWriters = 8;
  std::mutex mu;
  std::map<std::string, std::string> acked;  // name → resourceVersion
  std::atomic<size_t> next{0};
  std::atomic<bool> killed{false};
  std::condition_variable enough;
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&] {
      auto client = clientFor(dataDir, server.port);
      if (!client) {
        return;
      }
      // Writers keep going past kWanted so the kill lands in the middle of writes.
      while (!killed) {
        size_t i = next++;
        auto response = client->send("POST", "/apis/karpenter.sh/v1/nodeclaims",
                                     api::dumpJson(testing::nodeClaim(i)));
        if (!response) {
          return;  // the server is gone
        }
        if (response->status != 201) {
          continue;
        }
        Json body = Json::parse(response->body);
        std::lock_guard lock(mu);
        acked[body["metadata"]["name"]] = body["metadata"]["resourceVersion"];
        if (acked.size() == kWanted) {
          enough.notify_all();
        }
      }
    });
  }
  {
    // Wait for enough acknowledgements, then kill -9 while writes are in flight.
    std::unique_lock lock(mu);
    enough.wait_for(lock, 300s, [&] { return acked.size() >= kWanted; });
    server.child->kill(SIGKILL);
    killed = true;
  }
  for (auto& t : writers) {
    t.join();
  }
  ASSERT_GE(server.child->wait(30s), 0);
  ASSERT_GE(acked.size(), kWanted);

  auto restarted = startBinary(dataDir);
  ASSERT_NE(restarted.port, 0) << "the server did not restart";
  auto client = clientFor(dataDir, restarted.port);
  ASSERT_TRUE(client);
  auto list = client->send("GET", "/apis/karpenter.sh/v1/nodeclaims");
  ASSERT_TRUE(list);
  ASSERT_EQ(list->status, 200);
  Json listed = Json::parse(list->body);
  std::map<std::string, std::string> stored;
  int64_t highest = 0;
  for (const auto& item : listed["items"]) {
    std::string rv = item["metadata"]["resourceVersion"];
    stored[item["metadata"]["name"]] = rv;
    highest = std::max<int64_t>(highest, std::stoll(rv));
  }
  size_t missing = 0;
  for (const auto& [name, rv] : acked) {
    auto it = stored.find(name);
    if (it == stored.end() || it->second != rv) {
      ++missing;
    }
  }
  EXPECT_EQ(missing, 0u) << "acknowledged writes lost or changed";

  // The revision sequence continues after the highest stored revision.
  auto created = client->send("POST", "/apis/karpenter.sh/v1/nodeclaims",
                              api::dumpJson(testing::nodeClaim(999999)));
  ASSERT_TRUE(created);
  ASSERT_EQ(created->status, 201);
  EXPECT_GT(
      std::stoll(Json::parse(created->body)["metadata"]["resourceVersion"].get<std::string>()),
      highest);

  // A watch from before the crash either resumes or is told 410 Gone; it never silently misses.
  std::string first;
  auto watched =
      client->stream("/apis/karpenter.sh/v1/nodeclaims?watch=true&resourceVersion=" + startRv,
                     [&](std::string_view line) {
                       first = std::string(line);
                       return false;
                     });
  ASSERT_TRUE(watched);
  Json event = Json::parse(first);
  if (event["type"] == "ERROR") {
    EXPECT_EQ(event["object"]["code"], 410);
    EXPECT_EQ(event["object"]["reason"], "Expired");
  } else {
    EXPECT_EQ(event["type"], "ADDED");
    EXPECT_GT(std::stoll(event["object"]["metadata"]["resourceVersion"].get<std::string>()),
              std::stoll(startRv));
  }
  restarted.child->kill(SIGTERM);
  EXPECT_EQ(restarted.child->wait(30s), 0);
}

}  // namespace
}  // namespace nodewright::apiserver
