// One replica for leader_two_process_test.cc: a runtime::Manager under leader election whose
// only controller appends this replica's identity to the "counter" ConfigMap's data.log while it
// leads, so the log shows who reconciled, in order.
//
//   runtime_leader_peer --kubeconfig F --identity ID --lease-ms 3000 --renew-ms 2000
//                       --retry-ms 500
//
// stdout (flushed, one line each): "ready" once the caches synced, "leading" once it leads,
// "exit: MESSAGE" when the manager returns. Exit status: 0 after SIGTERM/SIGINT, 1 when the
// manager fails (leadership lost among others), 2 on bad arguments. Logs go to stderr.

#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>

#include "api/core/secret.h"
#include "cmd/signals.h"
#include "kube/client.h"
#include "kube/config.h"
#include "runtime/logging.h"
#include "runtime/manager.h"
#include "runtime/reconciler.h"

namespace nodewright::runtime {
namespace {

using api::corev1::ConfigMap;

constexpr const char* kNamespace = "default";
constexpr const char* kCounter = "counter";
constexpr const char* kLease = "leader-test";

struct Args {
  std::string kubeconfig;
  std::string identity;
  std::chrono::milliseconds lease{3000};
  std::chrono::milliseconds renew{2000};
  std::chrono::milliseconds retry{500};
};

bool parseArgs(int argc, char** argv, Args& args) {
  if (argc % 2 != 1) {
    return false;
  }
  try {
    for (int i = 1; i + 1 < argc; i += 2) {
      const std::string flag = argv[i];
      const std::string value = argv[i + 1];
      if (flag == "--kubeconfig") {
        args.kubeconfig = value;
      } else if (flag == "--identity") {
        args.identity = value;
      } else if (flag == "--lease-ms") {
        args.lease = std::chrono::milliseconds(std::stoll(value));
      } else if (flag == "--renew-ms") {
        args.renew = std::chrono::milliseconds(std::stoll(value));
      } else if (flag == "--retry-ms") {
        args.retry = std::chrono::milliseconds(std::stoll(value));
      } else {
        return false;
      }
    }
  } catch (const std::exception&) {
    return false;
  }
  return !args.kubeconfig.empty() && !args.identity.empty();
}

void say(const std::string& line) {
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

// Appends the identity to data.log and counts, with a plain update carrying the resourceVersion
// just read: a write based on a stale read conflicts, fails and is retried with backoff.
class CounterReconciler : public Reconciler {
 public:
  CounterReconciler(kube::Client& client, std::string identity)
      : configMaps_(client), identity_(std::move(identity)) {}

  Outcome reconcile(const Request& request, Context& context) override {
    if (request.ns != kNamespace || request.name != kCounter) {
      return Result::done();
    }
    auto current = configMaps_.get(request.ns, request.name);
    if (!current) {
      if (current.error().is(kube::Reason::NotFound)) {
        return Result::done();
      }
      return core::fail(current.error().toError().wrap("reading the counter"));
    }
    // The fence between read and write (see Context::leading).
    if (!context.leading()) {
      return core::fail(core::Error::internal("deposed between the gate and the write"));
    }
    ConfigMap next = *current;
    auto& log = next.data["log"];
    log += log.empty() ? identity_ : "," + identity_;
    const auto count = next.data.count("count") ? std::stoll(next.data["count"]) : 0;
    next.data["count"] = std::to_string(count + 1);
    if (auto updated = configMaps_.update(next); !updated) {
      return core::fail(updated.error().toError().wrap("updating the counter"));
    }
    // Keep writing while leading; the watch event of our own write also brings us back.
    return Result::after(std::chrono::milliseconds(50));
  }

 private:
  kube::Typed<ConfigMap> configMaps_;
  const std::string identity_;
};

// Prints "ready" and "leading" as the manager gets there, until `stop`. The manager has no
// callbacks for either, so this looks every 10 ms.
void announce(const Manager& manager, std::stop_token stop) {
  std::mutex mu;
  std::condition_variable_any cv;
  std::unique_lock lock(mu);
  bool ready = false;
  while (!cv.wait_for(lock, stop, std::chrono::milliseconds(10), [] { return false; }) &&
         !stop.stop_requested()) {
    if (!ready && manager.cachesSynced()) {
      ready = true;
      say("ready");
    }
    if (ready && manager.isLeader()) {
      say("leading");
      return;
    }
  }
}

int run(const Args& args, cmd::SignalWaiter& signals) {
  auto config = kube::loadKubeconfig(args.kubeconfig);
  if (!config) {
    say("exit: " + config.error().message());
    return 1;
  }
  // Below renewDeadline: a hung renewal must not outlive the leadership it renews.
  config->timeout = std::min(config->timeout, args.renew / 2);
  auto client = kube::Client::create(*config);
  if (!client) {
    say("exit: " + client.error().message());
    return 1;
  }

  ManagerOptions options;
  options.informerDefaults.ns = kNamespace;
  LeaderElectionConfig election;
  election.name = kLease;
  election.ns = kNamespace;
  election.identity = args.identity;
  election.leaseDuration = args.lease;
  election.renewDeadline = args.renew;
  election.retryPeriod = args.retry;
  options.leaderElection = election;
  Manager manager(**client, options);

  CounterReconciler reconciler(**client, args.identity);
  manager.addController("counter", reconciler).watchFor(manager.informerFor<ConfigMap>());

  std::stop_source stop;
  std::thread waiter([&] {
    signals.wait();
    stop.request_stop();
  });
  std::jthread announcer([&](std::stop_token own) { announce(manager, own); });

  auto status = manager.run(stop.get_token());
  announcer.request_stop();
  announcer.join();
  if (!stop.stop_requested()) {
    // The manager ended by itself: wake the signal thread (the signal is blocked everywhere, so
    // it only ends the sigwait).
    pthread_kill(waiter.native_handle(), SIGTERM);
  }
  waiter.join();
  say("exit: " + (status ? std::string("stopped") : status.error().message()));
  return status ? 0 : 1;
}

}  // namespace
}  // namespace nodewright::runtime

int main(int argc, char** argv) {
  using namespace nodewright;
  // First, before any thread exists: every thread inherits the blocked SIGTERM/SIGINT.
  cmd::SignalWaiter signals;
  if (auto logging = runtime::configureLogging({}); !logging) {
    return 2;
  }
  runtime::Args args;
  if (!runtime::parseArgs(argc, argv, args)) {
    std::fprintf(stderr,
                 "usage: %s --kubeconfig F --identity ID [--lease-ms N] [--renew-ms N] "
                 "[--retry-ms N]\n",
                 argv[0]);
    return 2;
  }
  return runtime::run(args, signals);
}
