#include "emulators/ec2/interruptions.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "api/reflect/json.h"
#include "api/yaml.h"
#include "aws/query.h"
#include "core/log.h"
#include "emulators/ec2/emulator.h"
#include "emulators/ec2/instance.h"
#include "emulators/ec2/launch.h"
#include "emulators/engine/config_fields.h"

namespace nodewright::emulators::ec2 {
namespace {

using std::chrono::microseconds;

constexpr std::string_view kSpotWarning = "EC2 Spot Instance Interruption Warning";
constexpr std::string_view kRebalance = "EC2 Instance Rebalance Recommendation";
constexpr std::string_view kStateChange = "EC2 Instance State-change Notification";

// The thread wakes at least this often (real time) while nothing is due: an idle check is cheap,
// and a fake clock's time moves without notifying anyone.
constexpr microseconds kIdleCheck = std::chrono::milliseconds(200);

bool live(const Resource& r) {
  return r.live() && (r.state == instance_state::kPending || r.state == instance_state::kRunning);
}

}  // namespace

core::Result<InterruptionFault> parseInterruptionFault(const api::Json& value) {
  namespace fielderr = api::fielderr;
  api::FieldErrors errors;
  const api::FieldPath path = api::FieldPath().child("interruptions");
  InterruptionFault out;
  ConfigFields f(value, path, errors);
  if (auto queue = f.string("queue")) {
    if (queue->empty()) {
      f.error("queue", fielderr::required());
    }
    out.queue = *queue;
  }
  if (auto every = f.duration("every")) {
    if (every->count() <= 0) {
      f.error("every", fielderr::invalid(*f.field("every"), "must be positive"));
    }
    out.every = *every;
  }
  if (auto notice = f.duration("notice")) {
    out.notice = *notice;
  }
  for (const char* name : {"spotShare", "rebalanceShare"}) {
    if (auto share = f.number(name)) {
      if (!(*share >= 0 && *share <= 1)) {
        f.error(name, fielderr::invalid(*f.field(name), "must be from 0 to 1"));
      }
      (std::string_view(name) == "spotShare" ? out.spotShare : out.rebalanceShare) = *share;
    }
  }
  if (const api::Json* v = f.field("instances")) {
    if (!v->is_array()) {
      f.error("instances", fielderr::wrongType(*v, "array"));
    } else {
      for (size_t i = 0; i < v->size(); ++i) {
        const api::Json& id = (*v)[i];
        if (!id.is_string() || id.get<std::string>().empty()) {
          errors.push_back({f.path("instances").index(i).str(), fielderr::wrongType(id, "string")});
          continue;
        }
        out.instances.push_back(id.get<std::string>());
      }
    }
  }
  f.rejectUnknown();
  if (!errors.empty()) {
    return core::fail(invalidConfig(errors));
  }
  return out;
}

api::Json toJson(const InterruptionFault& fault) {
  return {{"queue", fault.queue},         {"every", renderDuration(fault.every)},
          {"spotShare", fault.spotShare}, {"rebalanceShare", fault.rebalanceShare},
          {"instances", fault.instances}, {"notice", renderDuration(fault.notice)}};
}

core::Result<Ec2FaultConfig> parseEc2FaultConfigText(std::string_view text) {
  auto docs = api::parseDocuments(text);
  if (!docs) {
    return core::fail(docs.error());
  }
  Ec2FaultConfig out;
  std::string rest(text);
  if (docs->size() == 1 && docs->front().errors.empty() && docs->front().value.is_object() &&
      docs->front().value.contains("interruptions")) {
    api::Json value = docs->front().value;
    auto interruptions = parseInterruptionFault(value["interruptions"]);
    if (!interruptions) {
      return core::fail(interruptions.error());
    }
    out.interruptions = std::move(*interruptions);
    value.erase("interruptions");
    rest = api::dumpJson(value);  // JSON is YAML: the engine reads the rest as it would
  }
  auto engine = parseFaultConfigText(rest);
  if (!engine) {
    return core::fail(engine.error());
  }
  out.engine = std::move(*engine);
  return out;
}

std::string ec2EventJson(std::string_view detailType, std::string_view instanceId,
                         std::string_view region, std::string_view account, core::TimePoint time,
                         const std::string& detailJson, uint64_t serial) {
  // EventBridge writes event times to the second.
  const core::TimePoint seconds = std::chrono::floor<std::chrono::seconds>(time);
  api::Json event = {
      {"version", "0"},
      {"id", fmt::format("a1b2c3d4-5e6f-4a7b-8c9d-{:012x}", serial)},
      {"detail-type", detailType},
      {"source", "aws.ec2"},
      {"account", account},
      {"time", core::Time(seconds).toString()},
      {"region", region},
      {"resources", api::Json::array({fmt::format("arn:aws:ec2:{}:{}:instance/{}", region, account,
                                                  instanceId)})},
      {"detail", api::Json::parse(detailJson)},
  };
  return api::dumpJson(event);
}

Interrupter::Interrupter(Ec2Emulator& emulator) : emulator_(emulator) {}

Interrupter::~Interrupter() {
  stop();
}

void Interrupter::start() {
  std::lock_guard lock(mu_);
  if (thread_.joinable()) {
    return;
  }
  stopping_ = false;
  thread_ = std::thread([this] {
    const core::Clock& clock = emulator_.engine().clock();
    std::unique_lock lock(mu_);
    while (!stopping_) {
      runDueLocked();
      const auto steadyNow = clock.steadyNow();
      auto wakeAt = steadyNow + kIdleCheck;
      if (auto due = nextDueLocked()) {
        const auto until = std::chrono::duration_cast<microseconds>(*due - clock.now());
        wakeAt = std::min(wakeAt, steadyNow + std::max(until, microseconds(0)));
      }
      clock.waitUntil(lock, wake_, wakeAt);
    }
  });
}

void Interrupter::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    wake_.notify_all();
  }
  if (thread_.joinable()) {
    thread_.join();
  }
}

void Interrupter::setFault(std::optional<InterruptionFault> fault) {
  std::lock_guard lock(mu_);
  fault_ = std::move(fault);
  faultChanged_ = true;
  wake_.notify_all();
}

std::optional<InterruptionFault> Interrupter::fault() const {
  std::lock_guard lock(mu_);
  return fault_;
}

void Interrupter::runDue() {
  std::lock_guard lock(mu_);
  runDueLocked();
}

std::vector<Interruption> Interrupter::interruptions() const {
  std::lock_guard lock(mu_);
  return interruptions_;
}

std::vector<std::string> Interrupter::rebalanced() const {
  std::lock_guard lock(mu_);
  return rebalanced_;
}

void Interrupter::runDueLocked() {
  Engine& engine = emulator_.engine();
  const core::TimePoint now = engine.clock().now();
  const std::optional<InterruptionFault> fault = fault_;
  if (faultChanged_) {
    // A new configuration starts its intervals now, with a stream of its own.
    faultChanged_ = false;
    nextTick_.reset();
    if (fault && (fault->spotShare > 0 || fault->rebalanceShare > 0)) {
      nextTick_ = now + engine.time().toReal(fault->every);
      random_ = RandomStream::named(engine.faults().config().seed, "interruptions");
    }
  }
  if (fault) {
    for (const std::string& id : fault->instances) {
      if (!warned_.contains(id)) {
        interruptLocked(*fault, id);
      }
    }
    while (nextTick_ && *nextTick_ <= now) {
      drawSharesLocked(*fault);
      *nextTick_ += std::max(engine.time().toReal(fault->every), microseconds(1));
    }
  }
  // Terminations in the order they fall due; carrying one out may schedule another event.
  std::sort(pending_.begin(), pending_.end(),
            [](const Pending& a, const Pending& b) { return a.at < b.at; });
  std::vector<Pending> due;
  while (!pending_.empty() && pending_.front().at <= now) {
    due.push_back(std::move(pending_.front()));
    pending_.erase(pending_.begin());
  }
  for (const Pending& p : due) {
    carryOutLocked(p);
  }
}

std::optional<core::TimePoint> Interrupter::nextDueLocked() const {
  std::optional<core::TimePoint> next = nextTick_;
  for (const Pending& p : pending_) {
    if (!next || p.at < *next) {
      next = p.at;
    }
  }
  return next;
}

void Interrupter::interruptLocked(const InterruptionFault& fault, const std::string& instanceId) {
  Engine& engine = emulator_.engine();
  warned_.insert(instanceId);
  auto instance = engine.store().get(kind::kInstance, instanceId);
  if (!instance || !live(*instance)) {
    core::logInfo("ec2: interruption skipped, instance not running", {{"instance-id", instanceId}});
    return;
  }
  const auto* attrs = instance->as<InstanceAttributes>();
  const core::TimePoint now = engine.clock().now();
  Interruption record;
  record.instanceId = instanceId;
  record.instanceType = attrs ? attrs->instanceType : "";
  record.zone = attrs ? attrs->zone : "";
  record.lifecycle = attrs ? attrs->lifecycle : "";
  record.warned = now;
  record.terminateAt = now + engine.time().toReal(fault.notice);
  sendLocked(fault.queue, ec2EventJson(kSpotWarning, instanceId, emulator_.world().region,
                                       emulator_.world().accountId, now,
                                       api::dumpJson(api::Json{{"instance-id", instanceId},
                                                               {"instance-action", "terminate"}}),
                                       ++events_));
  pending_.push_back({record.terminateAt, instanceId, fault.queue, true});
  core::logInfo("ec2: spot interruption warning sent",
                {{"instance-id", instanceId}, {"queue", fault.queue}});
  interruptions_.push_back(std::move(record));
}

void Interrupter::drawSharesLocked(const InterruptionFault& fault) {
  Engine& engine = emulator_.engine();
  auto candidates = engine.store().list(kind::kInstance, [this](const Resource& r) {
    const auto* a = r.as<InstanceAttributes>();
    return live(r) && a != nullptr && a->lifecycle == "spot" && !warned_.contains(r.id);
  });
  // A fixed number of draws per interval, so the same seed picks the same instances.
  auto pick = [&](double share) {
    std::vector<std::string> picked;
    if (share <= 0 || candidates.empty()) {
      return picked;
    }
    const size_t count = std::clamp<size_t>(
        static_cast<size_t>(std::llround(share * static_cast<double>(candidates.size()))), 1,
        candidates.size());
    std::vector<const Resource*> pool;
    for (const Resource& r : candidates) {
      pool.push_back(&r);
    }
    for (size_t i = 0; i < count; ++i) {
      const size_t at = static_cast<size_t>(random_.next() % pool.size());
      picked.push_back(pool[at]->id);
      pool.erase(pool.begin() + static_cast<std::ptrdiff_t>(at));
    }
    return picked;
  };
  for (const std::string& id : pick(fault.rebalanceShare)) {
    sendLocked(fault.queue, ec2EventJson(kRebalance, id, emulator_.world().region,
                                         emulator_.world().accountId, engine.clock().now(),
                                         api::dumpJson(api::Json{{"instance-id", id}}), ++events_));
    rebalanced_.push_back(id);
  }
  for (const std::string& id : pick(fault.spotShare)) {
    interruptLocked(fault, id);
  }
}

void Interrupter::carryOutLocked(const Pending& pending) {
  Engine& engine = emulator_.engine();
  auto event = [&](std::string_view state) {
    sendLocked(pending.queue,
               ec2EventJson(
                   kStateChange, pending.instanceId, emulator_.world().region,
                   emulator_.world().accountId, engine.clock().now(),
                   api::dumpJson(api::Json{{"instance-id", pending.instanceId}, {"state", state}}),
                   ++events_));
  };
  if (!pending.terminate) {
    event(instance_state::kTerminated);
    return;
  }
  const aws::Params none;
  ActionContext ctx{engine,      emulator_.catalog(),  emulator_.world(),  none,
                    "interrupt", "interruption-fault", "ec2.amazonaws.com"};
  auto results = terminateInstances(ctx, {pending.instanceId});
  for (Interruption& i : interruptions_) {
    if (i.instanceId == pending.instanceId) {
      i.terminated = true;
    }
  }
  if (results.empty() || results.front().previousState == instance_state::kShuttingDown ||
      results.front().previousState == instance_state::kTerminated) {
    return;  // gone already (the controller terminated it first): EC2 has nothing to reclaim
  }
  event(instance_state::kShuttingDown);
  const Resource& instance = results.front().instance;
  const core::TimePoint terminatedAt = instance.next ? instance.next->at : engine.clock().now();
  pending_.push_back({terminatedAt, pending.instanceId, pending.queue, false});
  core::logInfo("ec2: interrupted instance terminated", {{"instance-id", pending.instanceId}});
}

void Interrupter::sendLocked(const std::string& queue, const std::string& body) {
  SqsQueues& sqs = emulator_.sqs();
  if (!sqs.exists(queue)) {
    (void)sqs.create(queue, {});
  }
  if (auto sent = sqs.send(queue, body); !sent) {
    core::logError("ec2: sending an interruption event failed",
                   {{"queue", queue}, {"error", sent.error().message}});
  }
}

}  // namespace nodewright::emulators::ec2
