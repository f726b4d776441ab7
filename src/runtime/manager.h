#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "kube/client.h"
#include "kube/informer.h"
#include "runtime/controller.h"
#include "runtime/endpoints.h"
#include "runtime/events.h"
#include "runtime/leader_election.h"
#include "runtime/metrics.h"

// The process's controller host, as controller-runtime's Manager: one shared informer per kind,
// caches synced before any controller starts, controllers only while this replica leads, and
// /metrics, /healthz and /readyz (ready once every cache has synced).
namespace nodewright::runtime {

struct ManagerOptions {
  const core::Clock* clock = nullptr;  // nullptr: system clock
  Registry* metrics = nullptr;         // nullptr: defaultRegistry()
  // Empty: not served. "127.0.0.1:0" picks a free port (see metricsPort()).
  std::optional<EndpointsOptions> metricsEndpoint;
  std::optional<EndpointsOptions> healthEndpoint;
  // Set: controllers run only while this replica holds the Lease.
  std::optional<LeaderElectionConfig> leaderElection;
  std::chrono::milliseconds cacheSyncTimeout{std::chrono::minutes(2)};
  kube::InformerOptions informerDefaults;
  std::string component = "nodewright";  // event source
};

class Manager {
 public:
  Manager(kube::Client& client, ManagerOptions options);
  ~Manager();
  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;

  kube::Client& client() { return client_; }
  const core::Clock& clock() const { return clock_; }
  Registry& metrics() { return metrics_; }

  // The shared informer of a kind (created on first use; before run()).
  kube::Informer& informer(const api::KindInfo& kind);
  template <class T>
  kube::Informer& informerFor() {
    return informer(kube::kindOf<T>(client_.registry()));
  }
  Controller& addController(const std::string& name, Reconciler& reconciler,
                            ControllerOptions options = {});
  EventRecorder& events();

  // Starts endpoints and informers, waits for the caches, then runs controllers (under leader
  // election when configured) until `stop`. Returns an error when the caches do not sync or
  // leadership is lost (the process should exit, as controller-runtime's does, so a fresh
  // replica rejoins the election with clean state). Controllers and informers are stopped when it
  // returns.
  core::Status run(std::stop_token stop);

  bool cachesSynced() const;
  bool isLeader() const;
  std::optional<uint16_t> metricsPort() const;
  std::optional<uint16_t> healthPort() const;

 private:
  core::Status startEndpoints();
  void runControllers(std::stop_token stop);
  void stopControllers();
  void stopInformers();
  core::Status runUntilStopped(std::stop_token stop);

  kube::Client& client_;
  ManagerOptions options_;
  const core::Clock& clock_;
  Registry& metrics_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<kube::Informer>> informers_;  // by apiVersion/kind
  std::vector<std::unique_ptr<Controller>> controllers_;
  std::unique_ptr<EventRecorder> events_;
  std::unique_ptr<Endpoints> metricsEndpoint_;
  std::unique_ptr<Endpoints> healthEndpoint_;
  std::unique_ptr<kube::Client> electionClient_;
  std::unique_ptr<LeaderElector> elector_;
  std::atomic<bool> synced_{false};
  std::atomic<bool> leading_{false};
};

}  // namespace nodewright::runtime
