// Leader election end to end: replicas are real processes (runtime_leader_peer) sharing one
// embedded API server, so a leader can be killed or paused like a crashed or frozen pod. Each
// replica's controller appends its identity to the "counter" ConfigMap while it leads; the log
// is the history of who reconciled.

#include <signal.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "api/core/lease.h"
#include "api/core/secret.h"
#include "kube/client.h"
#include "support/apiserver/process.h"
#include "support/apiserver/test_server.h"
#include "support/kube/rest_config.h"

namespace nodewright::runtime {
namespace {

using api::corev1::ConfigMap;
using apiserver::testing::Child;
using std::chrono::milliseconds;
using SteadyTime = std::chrono::steady_clock::time_point;

constexpr const char* kNamespace = "default";
constexpr const char* kCounter = "counter";
constexpr const char* kLease = "leader-test";  // the peer's

constexpr milliseconds kLeaseDuration{3000};
constexpr milliseconds kRenewDeadline{2000};
constexpr milliseconds kRetryPeriod{500};
// Candidates retry every retryPeriod·[1, 2.2) (client-go's jitter).
constexpr milliseconds kMaxRetryWait{1100};
// Upper bound for things that take a few lease durations; reached only when broken.
constexpr milliseconds kPatience{20000};
constexpr milliseconds kExitPatience{5000};

std::vector<std::string> split(const std::string& log) {
  std::vector<std::string> out;
  std::stringstream in(log);
  for (std::string entry; std::getline(in, entry, ',');) {
    out.push_back(entry);
  }
  return out;
}

std::string describe(const std::vector<std::string>& log) {
  std::string out;
  for (const auto& e : log) {
    out += (out.empty() ? "" : ",") + e;
  }
  return out;
}

// Index of the first entry by `identity`, or log.size().
size_t firstOf(const std::vector<std::string>& log, const std::string& identity) {
  return std::find(log.begin(), log.end(), identity) - log.begin();
}

// "" when `log` is one non-empty run per identity, in that order (A,A,B,B,B); else what broke.
std::string checkRuns(const std::vector<std::string>& log,
                      const std::vector<std::string>& identities) {
  size_t run = 0;
  for (size_t i = 0; i < log.size(); ++i) {
    if (log[i] == identities[run]) {
      continue;
    }
    if (run + 1 < identities.size() && log[i] == identities[run + 1]) {
      ++run;
      continue;
    }
    return "entry " + std::to_string(i) + " is " + log[i] + " during " + identities[run] +
           "'s run: " + describe(log);
  }
  if (run + 1 != identities.size()) {
    return "not every identity wrote: " + describe(log);
  }
  return "";
}

// Every version of the counter's log as a watch delivered it, with the (steady) time it arrived:
// the arrival is a little after the write, so durations measured to it are upper bounds.
class CounterLog {
 public:
  struct Version {
    SteadyTime at;
    std::vector<std::string> log;
  };

  explicit CounterLog(kube::Client& client)
      : thread_([this, &client](std::stop_token stop) { watch(client, stop); }) {}

  // Waits until `done(latest log)` holds; false after kPatience.
  bool waitFor(const std::function<bool(const std::vector<std::string>&)>& done) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, kPatience, [&] { return done(latestLocked()); });
  }
  std::vector<std::string> latest() const {
    std::lock_guard lock(mu_);
    return latestLocked();
  }
  // When the first version holding an entry by `identity` arrived.
  std::optional<SteadyTime> firstSeen(const std::string& identity) const {
    std::lock_guard lock(mu_);
    for (const auto& v : versions_) {
      if (std::find(v.log.begin(), v.log.end(), identity) != v.log.end()) {
        return v.at;
      }
    }
    return std::nullopt;
  }

 private:
  std::vector<std::string> latestLocked() const {
    return versions_.empty() ? std::vector<std::string>{} : versions_.back().log;
  }

  void watch(kube::Client& client, std::stop_token stop) {
    kube::ListOptions options;
    options.timeoutSeconds = 300;
    options.allowWatchBookmarks = false;
    auto status = client.watch(
        kube::kindOf<ConfigMap>(client.registry()), kNamespace, options,
        [this](kube::WatchEvent&& event) {
          if (!event.object) {
            return true;
          }
          const ConfigMap* cm = event.object->as<ConfigMap>();
          if (cm == nullptr || cm->metadata.name != kCounter) {
            return true;
          }
          auto log = cm->data.count("log") ? split(cm->data.at("log")) : std::vector<std::string>{};
          std::lock_guard lock(mu_);
          versions_.push_back({std::chrono::steady_clock::now(), std::move(log)});
          cv_.notify_all();
          return true;
        },
        stop);
    if (!status && !stop.stop_requested()) {
      ADD_FAILURE() << "counter watch ended: " << status.error().describe();
    }
  }

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Version> versions_;
  std::jthread thread_;  // last: stopped and joined before the rest goes
};

class LeaderTwoProcessTest : public ::testing::Test {
 protected:
  std::unique_ptr<Child> startPeer(const std::string& identity) {
    auto peer = std::make_unique<Child>(
        std::vector<std::string>{NW_LEADER_PEER, "--kubeconfig", server_.kubeconfig(), "--identity",
                                 identity, "--lease-ms", std::to_string(kLeaseDuration.count()),
                                 "--renew-ms", std::to_string(kRenewDeadline.count()), "--retry-ms",
                                 std::to_string(kRetryPeriod.count())});
    EXPECT_EQ(peer->waitForLine("ready", kPatience), "ready") << identity << " never synced";
    return peer;
  }

  void createCounter() {
    ConfigMap cm;
    cm.apiVersion = "v1";
    cm.kind = "ConfigMap";
    cm.metadata.name = kCounter;
    cm.metadata.namespace_ = kNamespace;
    auto created = kube::Typed<ConfigMap>(*client_).create(cm);
    ASSERT_TRUE(created) << created.error().describe();
  }

  std::string leaseHolder() {
    auto lease = kube::Typed<api::corev1::Lease>(*client_).get(kNamespace, kLease);
    EXPECT_TRUE(lease) << lease.error().describe();
    return lease ? lease->spec.holderIdentity : "";
  }

  apiserver::testing::TestApiServer server_;
  std::unique_ptr<kube::Client> client_ =
      kube::testing::clientFor(kube::testing::restConfigFor(server_));
  CounterLog log_{*client_};
};

TEST_F(LeaderTwoProcessTest, OneLeaderWritesSuccessorTakesOverAndPausedLeaderIsFenced) {
  std::map<std::string, std::unique_ptr<Child>> peers;
  peers["A"] = startPeer("A");
  peers["B"] = startPeer("B");
  createCounter();

  // 1. Exactly one of the two reconciles.
  ASSERT_TRUE(log_.waitFor([](const auto& entries) { return entries.size() >= 10; }))
      << "log: " << describe(log_.latest());
  auto log = log_.latest();
  const std::set<std::string> writers(log.begin(), log.end());
  ASSERT_EQ(writers.size(), 1u) << "two replicas reconciled at once: " << describe(log);
  const std::string first = *writers.begin();
  const std::string second = first == "A" ? "B" : "A";
  EXPECT_EQ(peers[first]->waitForLine("leading", kPatience), "leading");

  // 2. The leader dies without releasing the lease: the other takes over once it expires.
  const SteadyTime killed = std::chrono::steady_clock::now();
  peers[first]->kill(SIGKILL);
  EXPECT_EQ(peers[first]->wait(kExitPatience), 128 + SIGKILL);
  ASSERT_TRUE(log_.waitFor([&](const auto& entries) {
    return firstOf(entries, second) < entries.size();
  })) << second
      << " never took over; log: " << describe(log_.latest());
  const auto takeover = std::chrono::duration_cast<milliseconds>(*log_.firstSeen(second) - killed);
  RecordProperty("takeover_ms", std::to_string(takeover.count()));
  // The successor saw the last renewal at most one jittered retry after the kill, waits a lease
  // duration from then and acquires at its next retry; 500 ms for requests and the watch.
  EXPECT_LE(takeover, kLeaseDuration + 2 * kMaxRetryWait + milliseconds(500))
      << "takeover took " << takeover.count() << " ms";
  // It may not act before the lease could have expired: the last renewal was at most a retry
  // period (and a request) before the kill.
  EXPECT_GE(takeover, kLeaseDuration - kRetryPeriod - milliseconds(500))
      << "takeover after only " << takeover.count() << " ms";
  EXPECT_EQ(peers[second]->waitForLine("leading", kPatience), "leading");
  log = log_.latest();
  EXPECT_GE(firstOf(log, second), 10u);
  EXPECT_EQ(checkRuns(log, {first, second}), "");

  // 3. A fresh replica joins; the leader keeps leading until it is frozen past its renew
  // deadline. When it thaws it must find itself deposed before it writes again.
  peers["C"] = startPeer("C");
  const size_t beforeFreeze = log_.latest().size();
  ASSERT_TRUE(
      log_.waitFor([&](const auto& entries) { return entries.size() >= beforeFreeze + 5; }));
  EXPECT_EQ(leaseHolder(), second);
  peers[second]->kill(SIGSTOP);
  ASSERT_TRUE(log_.waitFor([&](const auto& entries) {
    return firstOf(entries, "C") < entries.size();
  })) << "C never took over from the frozen "
      << second << "; log: " << describe(log_.latest());
  EXPECT_EQ(peers["C"]->waitForLine("leading", kPatience), "leading");
  peers[second]->kill(SIGCONT);
  // The thawed replica notices the lost lease and its manager returns an error, which ends the
  // process (as controller-runtime's does) so a fresh replica can rejoin.
  EXPECT_EQ(peers[second]->waitForLine("exit:", kExitPatience), "exit: leader election lost");
  EXPECT_EQ(peers[second]->wait(kExitPatience), 1);
  const size_t afterThaw = log_.latest().size();
  ASSERT_TRUE(log_.waitFor([&](const auto& entries) { return entries.size() >= afterThaw + 10; }));

  auto c = kube::Typed<ConfigMap>(*client_).get(kNamespace, kCounter);
  ASSERT_TRUE(c) << c.error().describe();
  log = split(c->data["log"]);
  EXPECT_EQ(c->data["count"], std::to_string(log.size()));
  EXPECT_EQ(checkRuns(log, {first, second, "C"}), "");

  // A clean stop exits 0, for a follower and for the leader, which releases the lease.
  peers["D"] = startPeer("D");
  peers["D"]->kill(SIGTERM);
  EXPECT_EQ(peers["D"]->waitForLine("exit:", kExitPatience), "exit: stopped");
  EXPECT_EQ(peers["D"]->wait(kExitPatience), 0);
  EXPECT_EQ(leaseHolder(), "C");
  peers["C"]->kill(SIGTERM);
  EXPECT_EQ(peers["C"]->waitForLine("exit:", kExitPatience), "exit: stopped");
  EXPECT_EQ(peers["C"]->wait(kExitPatience), 0);
  EXPECT_EQ(leaseHolder(), "");
}

}  // namespace
}  // namespace nodewright::runtime
