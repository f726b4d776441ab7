#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "api/reflect/json.h"
#include "core/error.h"
#include "core/time.h"
#include "emulators/engine/faults.h"
#include "emulators/engine/random.h"

// The interruptions fault carried out on an EC2 emulator: EC2's EventBridge events go to the
// fault's SQS queue of the same emulator (created when missing), and interrupted instances are
// terminated after the notice, as EC2 reclaims spot capacity two minutes after its warning.
// Times are emulated (ScaledClock). Thread-safe.
namespace nodewright::emulators::ec2 {

class Ec2Emulator;

// Instances the cloud takes back, announced as EC2 announces them. Every `every` (emulated), a
// `spotShare` of the running spot instances (at least one when the share is above 0 and any
// runs) gets an "EC2 Spot Instance Interruption Warning" and is terminated `notice` later, with
// "EC2 Instance State-change Notification"s (shutting-down, terminated) as it goes; a
// `rebalanceShare` gets an "EC2 Instance Rebalance Recommendation" only. Each of `instances` is
// interrupted once, at once, spot or not. It is the `interruptions` key of the emulator's fault
// configuration (PUT /admin/faults; the EC2 emulator takes it out before the engine's faults):
//
//   interruptions: {queue: nodewright, every: 5m, spotShare: 0.1, instances: [i-0abc]}
struct InterruptionFault {
  // The queue `nodewright up` creates and its controllers read (named after its cluster, as
  // Karpenter's CloudFormation names the queue).
  std::string queue = "nodewright";
  std::chrono::microseconds every = std::chrono::minutes(5);
  double spotShare = 0;
  double rebalanceShare = 0;
  std::vector<std::string> instances;
  std::chrono::microseconds notice = std::chrono::minutes(2);
  bool operator==(const InterruptionFault&) const = default;
};

// Invalid with each problem's field path ("interruptions.spotShare: ...").
core::Result<InterruptionFault> parseInterruptionFault(const api::Json& value);
api::Json toJson(const InterruptionFault& fault);

// A fault configuration file of the EC2 emulator (YAML or JSON): the engine's faults and the
// interruptions key beside them.
struct Ec2FaultConfig {
  FaultConfig engine;
  std::optional<InterruptionFault> interruptions;
};
core::Result<Ec2FaultConfig> parseEc2FaultConfigText(std::string_view text);

// One interruption, for tests and reports.
struct Interruption {
  std::string instanceId;
  std::string instanceType;
  std::string zone;
  std::string lifecycle;  // "spot", "on-demand"
  core::TimePoint warned;
  core::TimePoint terminateAt;
  bool terminated = false;
};

class Interrupter {
 public:
  // `emulator` must outlive it.
  explicit Interrupter(Ec2Emulator& emulator);
  ~Interrupter();
  Interrupter(const Interrupter&) = delete;
  Interrupter& operator=(const Interrupter&) = delete;

  // Replaces the fault (none: interruptions stop; those warned still terminate). A new fault
  // starts its intervals now.
  void setFault(std::optional<InterruptionFault> fault);
  std::optional<InterruptionFault> fault() const;

  // A thread that calls runDue() as emulated time passes, until stop().
  void start();
  void stop();

  // Does what is due now: named instances not interrupted yet, the shares of every interval
  // passed since the last call, terminations whose notice is over and the state-change events
  // after them. Tests on a fake clock call it directly.
  void runDue();

  std::vector<Interruption> interruptions() const;
  // Rebalance recommendations sent, by instance id.
  std::vector<std::string> rebalanced() const;

 private:
  struct Pending {
    core::TimePoint at;
    std::string instanceId;
    std::string queue;
    bool terminate = true;  // false: only the "terminated" state-change event is due
  };

  void runDueLocked();
  void interruptLocked(const InterruptionFault& fault, const std::string& instanceId);
  void drawSharesLocked(const InterruptionFault& fault);
  void carryOutLocked(const Pending& pending);
  void sendLocked(const std::string& queue, const std::string& body);
  // When runDueLocked() has something to do next; nullopt: nothing scheduled.
  std::optional<core::TimePoint> nextDueLocked() const;

  Ec2Emulator& emulator_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::thread thread_;
  bool stopping_ = false;                    // GUARDED_BY(mu_)
  std::optional<InterruptionFault> fault_;   // GUARDED_BY(mu_)
  bool faultChanged_ = false;                // GUARDED_BY(mu_)
  std::optional<core::TimePoint> nextTick_;  // GUARDED_BY(mu_)
  RandomStream random_;                      // GUARDED_BY(mu_)
  std::set<std::string> warned_;             // GUARDED_BY(mu_)
  std::vector<Interruption> interruptions_;  // GUARDED_BY(mu_)
  std::vector<std::string> rebalanced_;      // GUARDED_BY(mu_)
  std::vector<Pending> pending_;             // GUARDED_BY(mu_)
  uint64_t events_ = 0;                      // GUARDED_BY(mu_), for event ids
};

// An EventBridge event of EC2 about one instance ("EC2 Spot Instance Interruption Warning"
// and the others), as the interruption queue receives it.
std::string ec2EventJson(std::string_view detailType, std::string_view instanceId,
                         std::string_view region, std::string_view account, core::TimePoint time,
                         const std::string& detailJson, uint64_t serial);

}  // namespace nodewright::emulators::ec2
