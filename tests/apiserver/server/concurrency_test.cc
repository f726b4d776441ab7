// 50 clients updating one object: each resourceVersion has exactly one winner, losers get 409,
// and no update is lost when clients retry.

#include <atomic>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "support/apiserver/fixtures.h"
#include "support/apiserver/test_server.h"

namespace nodewright::apiserver {
namespace {

using api::Json;

TEST(ApiServerConcurrency, OneWinnerPerResourceVersionAndNoLostUpdates) {
  testing::TestApiServer server;
  auto setup = server.client();
  auto created = setup->send("POST", "/api/v1/namespaces/default/configmaps",
                             api::dumpJson(testing::configMap("default", "counter")));
  ASSERT_TRUE(created);
  ASSERT_EQ(created->status, 201);

  constexpr int kClients = 50;
  constexpr int kIncrements = 4;
  std::atomic<int> conflicts{0};
  std::atomic<int> failures{0};
  std::mutex mu;
  std::vector<std::pair<std::string, std::string>> wins;  // (read rv, new rv)
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&] {
      auto client = server.client();
      for (int done = 0; done < kIncrements;) {
        auto got = client->send("GET", "/api/v1/namespaces/default/configmaps/counter");
        if (!got || got->status != 200) {
          ++failures;
          return;
        }
        Json object = Json::parse(got->body);
        std::string readRv = object["metadata"]["resourceVersion"];
        int value = std::stoi(object["data"]["counter"].get<std::string>());
        object["data"]["counter"] = std::to_string(value + 1);
        auto put = client->send("PUT", "/api/v1/namespaces/default/configmaps/counter",
                                api::dumpJson(object));
        if (!put) {
          ++failures;
          return;
        }
        if (put->status == 409) {
          Json status = Json::parse(put->body);
          if (status["reason"] != "Conflict") {
            ++failures;
          }
          ++conflicts;
          continue;  // retry from a fresh read
        }
        if (put->status != 200) {
          ++failures;
          return;
        }
        std::lock_guard lock(mu);
        wins.emplace_back(readRv, Json::parse(put->body)["metadata"]["resourceVersion"]);
        ++done;
      }
    });
  }
  for (auto& t : clients) {
    t.join();
  }
  ASSERT_EQ(failures.load(), 0);
  ASSERT_EQ(wins.size(), static_cast<size_t>(kClients * kIncrements));
  std::set<std::string> readRvs;
  std::set<std::string> newRvs;
  for (const auto& [read, written] : wins) {
    EXPECT_TRUE(readRvs.insert(read).second) << "two updates won from resourceVersion " << read;
    EXPECT_TRUE(newRvs.insert(written).second);
  }
  auto final = setup->send("GET", "/api/v1/namespaces/default/configmaps/counter");
  ASSERT_TRUE(final);
  EXPECT_EQ(Json::parse(final->body)["data"]["counter"], std::to_string(kClients * kIncrements));
  EXPECT_GT(conflicts.load(), 0) << "50 concurrent writers should have collided";
}

}  // namespace
}  // namespace nodewright::apiserver
