#include "runtime/leader_election.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "api/core/lease.h"
#include "core/clock.h"
#include "runtime/metrics.h"
#include "support/apiserver/test_server.h"
#include "support/runtime/api_client.h"

namespace nodewright::runtime {
namespace {

using api::corev1::Lease;
using std::chrono::milliseconds;
using SteadyTime = std::chrono::steady_clock::time_point;

constexpr const char* kNamespace = "kube-system";
constexpr const char* kLease = "nodewright-leader";
// Upper bound for waiting on things that happen within a few retry periods; never reached
// unless the behaviour under test is broken.
constexpr auto kPatience = std::chrono::seconds(20);

// Short timings so tests take about a second; leaseDuration is whole seconds as the Lease
// stores it.
LeaderElectionConfig config(const std::string& identity, bool releaseOnCancel) {
  LeaderElectionConfig c;
  c.name = kLease;
  c.ns = kNamespace;
  c.identity = identity;
  c.leaseDuration = milliseconds(1000);
  c.renewDeadline = milliseconds(600);
  c.retryPeriod = milliseconds(100);
  c.releaseOnCancel = releaseOnCancel;
  return c;
}

// Every version of the lease as a watch delivered it, with the (steady) time it arrived.
class LeaseLog {
 public:
  struct Entry {
    SteadyTime at;
    std::string holder;
    int32_t transitions;
    core::Time renewTime;
    core::Time acquireTime;
  };

  explicit LeaseLog(kube::Client& client)
      : thread_([this, &client](std::stop_token stop) { watch(client, stop); }) {}

  // Waits until `done(entries)` holds; false after kPatience.
  bool waitFor(const std::function<bool(const std::vector<Entry>&)>& done) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, kPatience, [&] { return done(entries_); });
  }
  std::vector<Entry> entries() const {
    std::lock_guard lock(mu_);
    return entries_;
  }

 private:
  void watch(kube::Client& client, std::stop_token stop) {
    const auto& kind = kube::kindOf<Lease>(client.registry());
    kube::ListOptions options;
    options.timeoutSeconds = 60;
    options.allowWatchBookmarks = false;
    auto status = client.watch(
        kind, kNamespace, options,
        [this](kube::WatchEvent&& event) {
          if (!event.object) {
            return true;
          }
          const Lease* lease = event.object->as<Lease>();
          if (lease == nullptr || lease->metadata.name != kLease) {
            return true;
          }
          std::lock_guard lock(mu_);
          entries_.push_back({std::chrono::steady_clock::now(), lease->spec.holderIdentity,
                              lease->spec.leaseTransitions.value_or(0), lease->spec.renewTime,
                              lease->spec.acquireTime});
          cv_.notify_all();
          return true;
        },
        stop);
    if (!status && !stop.stop_requested()) {
      ADD_FAILURE() << "lease watch ended: " << status.error().describe();
    }
  }

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Entry> entries_;
  std::jthread thread_;  // last: stopped and joined before the rest goes
};

// Counts leaders whose work is running: overlapping leadership shows as more than one.
struct Overlap {
  std::atomic<int> now{0};
  std::atomic<int> most{0};
};

// One elector on its own thread and client, recording what its callbacks saw.
class Candidate {
 public:
  Candidate(const apiserver::testing::TestApiServer& server, const core::Clock& clock,
            LeaderElectionConfig cfg, Overlap& overlap)
      : client_(testing::apiClient(server, milliseconds(500))), overlap_(overlap) {
    LeaderCallbacks callbacks;
    // Blocks while leading, as a manager running controllers would.
    callbacks.onStartedLeading = [this](std::stop_token lost) {
      int leaders = ++overlap_.now;
      overlap_.most = std::max(overlap_.most.load(), leaders);
      signal([this] {
        ++started_;
        startedAt_ = std::chrono::steady_clock::now();
      });
      std::mutex mu;
      std::condition_variable cv;
      std::stop_callback wake(lost, [&] {
        std::lock_guard lock(mu);
        cv.notify_all();
      });
      std::unique_lock lock(mu);
      cv.wait(lock, [&] { return lost.stop_requested(); });
      --overlap_.now;
      signal([this] { lostSeen_ = true; });
    };
    callbacks.onStoppedLeading = [this] { signal([this] { ++stopped_; }); };
    callbacks.onNewLeader = [this](const std::string& identity) {
      signal([&] { leaders_.push_back(identity); });
    };
    elector_ =
        std::make_unique<LeaderElector>(*client_, clock, std::move(cfg), std::move(callbacks));
    thread_ = std::jthread([this](std::stop_token stop) { elector_->run(stop); });
  }

  LeaderElector& elector() { return *elector_; }
  // Requests run()'s stop and waits for it to return.
  void stop() {
    thread_.request_stop();
    thread_.join();
  }
  bool waitStarted() {
    return waitFor([this] { return started_ > 0; });
  }
  bool waitStopped() {
    return waitFor([this] { return stopped_ > 0; });
  }
  bool waitObserved(const std::string& identity) {
    return waitFor(
        [&] { return std::find(leaders_.begin(), leaders_.end(), identity) != leaders_.end(); });
  }
  int started() {
    std::lock_guard lock(mu_);
    return started_;
  }
  int stopped() {
    std::lock_guard lock(mu_);
    return stopped_;
  }
  bool lostSeen() {
    std::lock_guard lock(mu_);
    return lostSeen_;
  }
  SteadyTime startedAt() {
    std::lock_guard lock(mu_);
    return startedAt_;
  }

 private:
  // `done` runs under the candidate's lock: it reads the fields, not the accessors.
  bool waitFor(const std::function<bool()>& done) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, kPatience, done);
  }
  void signal(const std::function<void()>& change) {
    std::lock_guard lock(mu_);
    change();
    cv_.notify_all();
  }

  std::unique_ptr<kube::Client> client_;
  Overlap& overlap_;
  std::unique_ptr<LeaderElector> elector_;
  std::mutex mu_;
  std::condition_variable cv_;
  int started_ = 0;
  int stopped_ = 0;
  bool lostSeen_ = false;
  SteadyTime startedAt_{};
  std::vector<std::string> leaders_;
  std::jthread thread_;  // last: joined before the state it writes goes away
};

class LeaderElectorTest : public ::testing::Test {
 protected:
  std::unique_ptr<Candidate> candidate(const std::string& identity, bool releaseOnCancel,
                                       Registry* metrics = nullptr) {
    LeaderElectionConfig c = config(identity, releaseOnCancel);
    c.metrics = metrics;
    return std::make_unique<Candidate>(server_, clock_, std::move(c), overlap_);
  }

  Lease lease() {
    auto lease = kube::Typed<Lease>(*client_).get(kNamespace, kLease);
    EXPECT_TRUE(lease) << lease.error().describe();
    return lease ? *lease : Lease{};
  }

  apiserver::testing::TestApiServer server_;
  core::SystemClock clock_;
  std::unique_ptr<kube::Client> client_ = testing::apiClient(server_);
  Overlap overlap_;
  LeaseLog log_{*client_};
};

TEST_F(LeaderElectorTest, ExactlyOneOfTwoCandidatesLeads) {
  Registry metrics;
  auto a = candidate("a", true, &metrics);
  auto b = candidate("b", true);
  ASSERT_TRUE(log_.waitFor([](const auto& entries) { return !entries.empty(); }));
  const std::string id = log_.entries().front().holder;
  ASSERT_TRUE(id == "a" || id == "b") << id;
  Candidate& leader = id == "a" ? *a : *b;
  Candidate& follower = id == "a" ? *b : *a;
  ASSERT_TRUE(leader.waitStarted());

  // Ten renewals: the follower has tried and failed many times meanwhile.
  ASSERT_TRUE(log_.waitFor([&](const auto& entries) {
    return std::count_if(entries.begin(), entries.end(),
                         [&](const auto& e) { return e.holder == id; }) >= 10;
  }));
  EXPECT_TRUE(follower.waitObserved(id));
  EXPECT_EQ(follower.started(), 0);
  EXPECT_TRUE(leader.elector().isLeader());
  EXPECT_FALSE(follower.elector().isLeader());
  EXPECT_EQ(follower.elector().observedLeader(), id);
  EXPECT_EQ(overlap_.most.load(), 1);
  for (const auto& e : log_.entries()) {
    EXPECT_EQ(e.holder, id);
    EXPECT_EQ(e.transitions, 0);
  }
  EXPECT_EQ(metrics.gauge("leader_election_master_status", "", {"name"}).with({kLease}).value(),
            id == "a" ? 1 : 0);
}

TEST_F(LeaderElectorTest, CrashedLeaderIsSucceededOnlyAfterItsLeaseExpires) {
  Registry metrics;
  auto a = candidate("a", /*releaseOnCancel=*/false, &metrics);
  ASSERT_TRUE(a->waitStarted());
  auto b = candidate("b", false);
  ASSERT_TRUE(b->waitObserved("a"));

  a->stop();  // as if the process died: no release
  EXPECT_EQ(a->stopped(), 1);
  EXPECT_TRUE(a->lostSeen());
  EXPECT_FALSE(a->elector().isLeader());
  EXPECT_EQ(metrics.gauge("leader_election_master_status", "", {"name"}).with({kLease}).value(), 0);
  const Lease last = lease();
  EXPECT_EQ(last.spec.holderIdentity, "a");  // still claimed

  ASSERT_TRUE(b->waitStarted());
  ASSERT_TRUE(log_.waitFor([](const auto& entries) {
    return std::any_of(entries.begin(), entries.end(),
                       [](const auto& e) { return e.holder == "b"; });
  }));
  const auto entries = log_.entries();
  auto firstB =
      std::find_if(entries.begin(), entries.end(), [](const auto& e) { return e.holder == "b"; });
  auto lastA = std::find_if(std::make_reverse_iterator(firstB), entries.rend(),
                            [](const auto& e) { return e.holder == "a"; });
  ASSERT_NE(lastA, entries.rend());
  // B waited a full lease duration from when A's last renewal landed (watch delivery jitter
  // aside), measured on one steady clock.
  EXPECT_GE(firstB->at - lastA->at, milliseconds(1000) - milliseconds(100));
  EXPECT_GE(firstB->acquireTime.point() - last.spec.renewTime.point(), milliseconds(950));
  EXPECT_EQ(firstB->transitions, 1);
  EXPECT_EQ(lease().spec.holderIdentity, "b");
  EXPECT_EQ(overlap_.most.load(), 1);
}

TEST_F(LeaderElectorTest, ReleasedLeaseIsTakenOverAtOnce) {
  auto a = candidate("a", /*releaseOnCancel=*/true);
  ASSERT_TRUE(a->waitStarted());
  auto b = candidate("b", true);
  ASSERT_TRUE(b->waitObserved("a"));

  const SteadyTime stopping = std::chrono::steady_clock::now();
  a->stop();
  EXPECT_EQ(a->stopped(), 1);
  ASSERT_TRUE(b->waitStarted());
  // A released, so B took over on its next attempt (every 100-220 ms), far sooner than the
  // 1 s lease would have let it.
  EXPECT_LT(b->startedAt() - stopping, milliseconds(700));

  ASSERT_TRUE(log_.waitFor([](const auto& entries) {
    return std::any_of(entries.begin(), entries.end(),
                       [](const auto& e) { return e.holder == "b"; });
  }));
  const auto entries = log_.entries();
  auto firstB =
      std::find_if(entries.begin(), entries.end(), [](const auto& e) { return e.holder == "b"; });
  ASSERT_NE(firstB, entries.begin());
  EXPECT_EQ(std::prev(firstB)->holder, "");  // the release
  EXPECT_EQ(firstB->transitions, 1);
  EXPECT_EQ(overlap_.most.load(), 1);
}

TEST_F(LeaderElectorTest, StoppingBeforeAcquiringReturnsWithoutLeading) {
  auto a = candidate("a", true);
  ASSERT_TRUE(a->waitStarted());
  auto b = candidate("b", true);
  ASSERT_TRUE(b->waitObserved("a"));
  b->stop();
  EXPECT_EQ(b->started(), 0);
  EXPECT_EQ(b->stopped(), 0);
  EXPECT_TRUE(a->elector().isLeader());
}

TEST_F(LeaderElectorTest, LeaderRejoinsAfterRunningAgain) {
  auto a = candidate("a", true);
  ASSERT_TRUE(a->waitStarted());
  a->stop();
  auto again = candidate("a", true);
  ASSERT_TRUE(again->waitStarted());
  EXPECT_EQ(lease().spec.holderIdentity, "a");
  EXPECT_EQ(lease().spec.leaseTransitions, 1);  // released by a, acquired again
}

// With a fake clock: leadership ends exactly renewDeadline after the last renewal when the
// API server is gone, whatever the elector's threads are doing.
TEST(LeaderElectorDeadlineTest, IsLeaderTurnsFalseAtRenewDeadlineWhenApiServerIsGone) {
  apiserver::testing::TestApiServer server;
  core::FakeClock clock;
  Overlap overlap;
  Candidate a(server, clock, config("a", true), overlap);
  ASSERT_TRUE(a.waitStarted());
  ASSERT_TRUE(a.elector().isLeader());

  server.stop();
  // Renewals from now on fail; the last one started no later than now on the fake clock.
  clock.advance(milliseconds(599));
  EXPECT_TRUE(a.elector().isLeader());
  clock.advance(milliseconds(1));
  EXPECT_FALSE(a.elector().isLeader());  // at once, without waiting for any thread
  ASSERT_TRUE(a.waitStopped());
  EXPECT_EQ(a.stopped(), 1);
  EXPECT_TRUE(a.lostSeen());
  EXPECT_FALSE(a.elector().isLeader());
}

struct ValidateCase {
  std::string name;
  std::function<void(LeaderElectionConfig&)> edit;
  bool valid;
};

class LeaderElectorValidateTest : public ::testing::TestWithParam<ValidateCase> {};

TEST_P(LeaderElectorValidateTest, ChecksTimingsAndNames) {
  LeaderElectionConfig c = config("a", true);
  GetParam().edit(c);
  EXPECT_EQ(LeaderElector::validate(c).has_value(), GetParam().valid);
}

INSTANTIATE_TEST_SUITE_P(
    Configs, LeaderElectorValidateTest,
    ::testing::Values(ValidateCase{"Defaults", [](auto&) {}, true},
                      ValidateCase{"ClientGoDefaults",
                                   [](auto& c) {
                                     c.leaseDuration = milliseconds(15000);
                                     c.renewDeadline = milliseconds(10000);
                                     c.retryPeriod = milliseconds(2000);
                                   },
                                   true},
                      ValidateCase{"RenewDeadlineEqualsLease",
                                   [](auto& c) { c.renewDeadline = c.leaseDuration; }, false},
                      ValidateCase{"RenewDeadlineWithinJitteredRetry",
                                   [](auto& c) { c.retryPeriod = milliseconds(500); }, false},
                      ValidateCase{"ZeroRetry", [](auto& c) { c.retryPeriod = milliseconds(0); },
                                   false},
                      ValidateCase{"NoIdentity", [](auto& c) { c.identity.clear(); }, false},
                      ValidateCase{"NoName", [](auto& c) { c.name.clear(); }, false},
                      ValidateCase{"NoNamespace", [](auto& c) { c.ns.clear(); }, false}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace nodewright::runtime
