// ServiceRunner: seed 004's service loop, with the dependency graph of its "parallel
// reconciliation" alternative. A service starts the moment its prerequisites have ended Done in
// this pass (Graph), or the one before it has (Serial); its specs go to a small pool of worker
// threads, each resource's calls on its own slice of the object's operation records (its
// futures, converted), taken out of the list while they run and merged back when they end: no
// two threads touch the same records.
#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <system_error>
#include <thread>
#include <tuple>

#include <fmt/format.h>

#include "controllers/capz/conditions.h"
#include "controllers/capz/futures.h"
#include "controllers/capz/service.h"

namespace nodewright::controllers::capz {
namespace {

using Kind = lro::Outcome::Kind;
using std::chrono::milliseconds;

// Which outcome speaks for a service: the worst of its specs'.
int rank(Kind kind) {
  switch (kind) {
    case Kind::Done:
      return 0;
    case Kind::NotDone:
      return 1;
    case Kind::Error:
      return 2;
    case Kind::Failed:
      return 3;
  }
  return 3;
}

// One engine call: a spec of a started service.
struct SpecCall {
  const lro::ResourceSpec* spec = nullptr;
  lro::ResourceRef ref;
  lro::Outcome outcome;
};

// The calls of one service on one resource's records (same serviceName, resource group and
// name: every verb), run one after another by one worker on `records`, the resource's records
// taken out of the object's.
struct Slice {
  size_t service = 0;
  lro::Deadline deadline = lro::Deadline::none();
  lro::ResourceRef resource;
  std::vector<SpecCall> calls;
  lro::OperationRecords records;
};

bool inSlice(const lro::OperationRecord& r, const Slice& s) {
  return r.key.serviceName == s.resource.serviceName &&
         r.key.resourceGroup == s.resource.resourceGroup && r.key.name == s.resource.name;
}

// What a service achieved this pass.
struct ServiceResult {
  bool started = false;
  bool complete = false;  // every call has ended (or none was needed)
  bool called = false;
  size_t pendingSlices = 0;
  lro::Outcome outcome;  // the worst spec's; Done without calls
  lro::ResourceRef ref;  // the worst spec's resource
};

class PassRun {
 public:
  PassRun(lro::Engine& engine, const core::Clock& clock, const RunnerOptions& options,
          const std::vector<Service>& services, lro::OperationRecords& records,
          std::vector<api::capi::CapiCondition>& conditions, bool deleting)
      : engine_(engine),
        clock_(clock),
        options_(options),
        services_(services),
        records_(records),
        conditions_(conditions),
        deleting_(deleting),
        reconcile_(engine.reconcileDeadline()),
        results_(services.size()) {}

  Pass run() {
    {
      std::lock_guard lock(mu_);
      scheduleLocked();
    }
    work();
    // Only a running call starts threads; none runs once work() has returned.
    for (std::thread& t : threads_) {
      t.join();
    }
    writeConditions();
    return summarize();
  }

 private:
  // The loop of every worker, the caller's thread included: ends when nothing is queued or
  // running.
  void work(bool spawned = false) {
    std::unique_lock lock(mu_);
    if (spawned) {
      --starting_;
    }
    for (;;) {
      if (!queue_.empty()) {
        Slice& slice = slices_[queue_.front()];
        queue_.pop_front();
        ++running_;
        lock.unlock();
        for (SpecCall& call : slice.calls) {
          call.outcome = callEngine(call, slice);
        }
        lock.lock();
        --running_;
        finishLocked(slice);
        cv_.notify_all();
        continue;
      }
      if (running_ == 0) {
        cv_.notify_all();
        return;
      }
      ++idle_;
      cv_.wait(lock);
      --idle_;
    }
  }

  // A spec's parameters() may throw (a json read of an unexpected shape); an exception must
  // not escape a worker thread (it would end the process): it becomes this resource's Error.
  lro::Outcome callEngine(const SpecCall& call, Slice& slice) noexcept {
    try {
      return deleting_ ? engine_.remove(*call.spec, slice.records, slice.deadline)
                       : engine_.createOrUpdate(*call.spec, slice.records, slice.deadline);
    } catch (const std::exception& e) {
      lro::Outcome failed;
      failed.kind = lro::Outcome::Kind::Error;
      failed.message = fmt::format("{} {}: {}", deleting_ ? "deleting" : "reconciling",
                                   lro::describeResource(call.ref), e.what());
      return failed;
    } catch (...) {
      lro::Outcome failed;
      failed.kind = lro::Outcome::Kind::Error;
      failed.message = fmt::format("{} {}: unknown error", deleting_ ? "deleting" : "reconciling",
                                   lro::describeResource(call.ref));
      return failed;
    }
  }

  // Starts what may start now. REQUIRES mu_.
  void scheduleLocked() {
    for (bool progress = true; progress;) {
      progress = false;
      if (reconcile_.expired(clock_)) {
        return;  // no service starts work once the reconcile's deadline has passed
      }
      if (options_.order == Order::Graph) {
        for (size_t i = 0; i < services_.size(); ++i) {
          if (!results_[i].started && prerequisitesDone(i)) {
            startLocked(i);
            progress = true;
          }
        }
      } else if (serialNext_ < services_.size() &&
                 (serialNext_ == 0 || doneThisPass(serialIndex(serialNext_ - 1)))) {
        startLocked(serialIndex(serialNext_++));
        progress = true;
      }
    }
  }

  // CAPZ's order; reversed for a delete.
  size_t serialIndex(size_t n) const { return deleting_ ? services_.size() - 1 - n : n; }

  // Create: every service it depends on is Done. Delete: every service depending on it is
  // gone. A dependency the list does not hold (the object needs no such service) is no wait.
  bool prerequisitesDone(size_t i) const {
    for (size_t j = 0; j < services_.size(); ++j) {
      const auto& deps = deleting_ ? services_[j].dependsOn : services_[i].dependsOn;
      const std::string& name = deleting_ ? services_[i].name : services_[j].name;
      if (j != i && std::find(deps.begin(), deps.end(), name) != deps.end() && !doneThisPass(j)) {
        return false;
      }
    }
    return true;
  }

  bool doneThisPass(size_t i) const { return results_[i].complete && results_[i].outcome.done(); }

  // REQUIRES mu_.
  void startLocked(size_t i) {
    ServiceResult& r = results_[i];
    r.started = true;
    r.outcome.kind = Kind::Done;
    const Service& service = services_[i];
    if ((deleting_ && service.skipDelete) || service.specs.empty()) {
      r.complete = true;  // goes with the resource group, or is not ours: Done without a call
      return;
    }
    const lro::Deadline deadline = engine_.serviceDeadline(reconcile_);
    std::map<std::tuple<std::string, std::string, std::string>, size_t> byKey;
    std::vector<size_t> fresh;
    for (const auto& spec : service.specs) {
      SpecCall call;
      call.spec = spec.get();
      call.ref = spec->resource();
      auto [it, added] = byKey.try_emplace(
          {call.ref.serviceName, call.ref.resourceGroup, call.ref.name}, slices_.size());
      if (added) {
        Slice& s = slices_.emplace_back();
        s.service = i;
        s.deadline = deadline;
        s.resource = call.ref;
        for (const lro::OperationRecord& r : records_) {
          if (inSlice(r, s)) {
            s.records.push_back(r);
          }
        }
        std::erase_if(records_, [&](const lro::OperationRecord& r) { return inSlice(r, s); });
        fresh.push_back(it->second);
      }
      slices_[it->second].calls.push_back(std::move(call));
    }
    r.pendingSlices = fresh.size();
    for (size_t s : fresh) {
      queue_.push_back(s);
    }
    // A new worker for what the idle ones cannot take, up to the parallelism (the caller's
    // thread is one).
    while (queue_.size() > idle_ + starting_ &&
           threads_.size() + 1 < static_cast<size_t>(std::max(options_.parallelism, 1))) {
      ++starting_;
      try {
        threads_.emplace_back([this] { work(true); });
      } catch (const std::system_error&) {
        --starting_;  // no thread to be had: the workers there are take the slices
        break;
      }
    }
    cv_.notify_all();
  }

  // Merges a slice's records back and keeps its outcomes. REQUIRES mu_.
  void finishLocked(Slice& slice) {
    for (lro::OperationRecord& r : slice.records) {
      records_.push_back(std::move(r));
    }
    ServiceResult& r = results_[slice.service];
    for (const SpecCall& call : slice.calls) {
      if (!r.called || rank(call.outcome.kind) > rank(r.outcome.kind)) {
        r.outcome = call.outcome;
        r.ref = call.ref;
      }
      r.called = true;
      if (call.outcome.transient() && call.outcome.requeueAfter) {
        requeue_ =
            requeue_ ? std::min(*requeue_, *call.outcome.requeueAfter) : *call.outcome.requeueAfter;
      }
      if (!deleting_ && call.outcome.done()) {
        doneResults_.emplace_back(call.ref.id, call.outcome.result);
      }
    }
    if (--r.pendingSlices == 0) {
      r.complete = true;
      scheduleLocked();
    }
  }

  // One write per condition type, once the pass is over: services sharing a type (a private
  // DNS zone and its records) report the worst of them, and a part that did not start keeps
  // the condition from saying True.
  void writeConditions() {
    std::vector<std::string_view> written;
    const core::Time now(clock_.now());
    for (size_t i = 0; i < services_.size(); ++i) {
      const std::string& type = services_[i].conditionType;
      if (type.empty() || std::find(written.begin(), written.end(), type) != written.end()) {
        continue;
      }
      written.push_back(type);
      const ServiceResult* worst = nullptr;
      bool allStarted = true;
      for (size_t j = i; j < services_.size(); ++j) {
        if (services_[j].conditionType != type || (deleting_ && services_[j].skipDelete)) {
          continue;
        }
        const ServiceResult& r = results_[j];
        allStarted = allStarted && r.started;
        if (r.started && (worst == nullptr || rank(r.outcome.kind) > rank(worst->outcome.kind))) {
          worst = &r;
        }
      }
      if (worst == nullptr || (worst->outcome.done() && !allStarted)) {
        continue;
      }
      if (deleting_) {
        updateDeleteStatus(conditions_, type, worst->ref, worst->outcome, now);
      } else {
        updatePutStatus(conditions_, type, worst->ref, worst->outcome, now);
      }
    }
  }

  Pass summarize() {
    Pass pass;
    pass.done = true;
    for (size_t i = 0; i < services_.size(); ++i) {
      const ServiceResult& r = results_[i];
      if (!r.started) {
        pass.done = false;
        continue;
      }
      pass.outcomes.emplace_back(services_[i].name, r.outcome);
      pass.done = pass.done && r.outcome.done();
      if (r.outcome.kind == Kind::Failed && !pass.failed) {
        pass.failed = true;
        pass.failureMessage = r.outcome.message;
      }
    }
    if (!pass.done) {
      pass.requeueAfter = requeue_;
    }
    pass.results = std::move(doneResults_);
    return pass;
  }

  // Fixed for the pass.
  lro::Engine& engine_;
  const core::Clock& clock_;
  const RunnerOptions& options_;
  const std::vector<Service>& services_;
  lro::OperationRecords& records_;  // GUARDED_BY(mu_) while workers run
  std::vector<api::capi::CapiCondition>& conditions_;
  const bool deleting_;
  const lro::Deadline reconcile_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<ServiceResult> results_;   // GUARDED_BY(mu_)
  std::deque<Slice> slices_;             // GUARDED_BY(mu_); a queued slice belongs to its worker
  std::deque<size_t> queue_;             // GUARDED_BY(mu_)
  std::vector<std::thread> threads_;     // GUARDED_BY(mu_)
  size_t running_ = 0;                   // GUARDED_BY(mu_)
  size_t idle_ = 0;                      // GUARDED_BY(mu_)
  size_t starting_ = 0;                  // GUARDED_BY(mu_): threads started, not yet in work()
  size_t serialNext_ = 0;                // GUARDED_BY(mu_)
  std::optional<milliseconds> requeue_;  // GUARDED_BY(mu_)
  std::vector<std::pair<std::string, api::Json>> doneResults_;  // GUARDED_BY(mu_)
};

}  // namespace

ServiceRunner::ServiceRunner(lro::Engine& engine, const core::Clock& clock, RunnerOptions options)
    : engine_(engine), clock_(clock), options_(options) {}

Pass ServiceRunner::reconcile(const std::vector<Service>& services, api::capz::Futures& futures,
                              std::vector<api::capi::CapiCondition>& conditions) {
  return withRecords(futures, [&](lro::OperationRecords& records) {
    return PassRun(engine_, clock_, options_, services, records, conditions, false).run();
  });
}

Pass ServiceRunner::remove(const std::vector<Service>& services, api::capz::Futures& futures,
                           std::vector<api::capi::CapiCondition>& conditions) {
  return withRecords(futures, [&](lro::OperationRecords& records) {
    return PassRun(engine_, clock_, options_, services, records, conditions, true).run();
  });
}

}  // namespace nodewright::controllers::capz
