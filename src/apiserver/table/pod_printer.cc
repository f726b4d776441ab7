#include <optional>
#include <set>
#include <string>

#include "apiserver/table/human_duration.h"
#include "apiserver/table/json_access.h"
#include "apiserver/table/printer.h"

// kubectl get pods: NAME READY STATUS RESTARTS AGE, and with -o wide IP NODE NOMINATED NODE
// READINESS GATES. The STATUS logic follows printPod in kube's printers.go.
namespace nodewright::apiserver::table {
namespace {

using api::Json;

// A later restart replaces an earlier one; absent times never win.
void noteRestart(const Json& status, std::optional<core::TimePoint>& latest) {
  auto finished = parseTimestamp(member(status, {"lastState", "terminated", "finishedAt"}));
  if (finished && (!latest || *latest < *finished)) {
    latest = finished;
  }
}

bool hasCondition(const Json& pod, std::string_view type) {
  for (const Json& condition : arrayAt(pod, {"status", "conditions"})) {
    if (stringAt(condition, {"type"}) == type && stringAt(condition, {"status"}) == "True") {
      return true;
    }
  }
  return false;
}

// "Init:Error", "Init:Signal:9" or "Init:ExitCode:1" for a failed container; the prefix is ""
// for app containers.
std::string terminatedReason(const Json& terminated, const std::string& prefix) {
  std::string reason = stringAt(terminated, {"reason"});
  if (!reason.empty()) {
    return prefix + reason;
  }
  if (int64_t signal = intAt(terminated, {"signal"}); signal != 0) {
    return prefix + "Signal:" + std::to_string(signal);
  }
  return prefix + "ExitCode:" + std::to_string(intAt(terminated, {"exitCode"}));
}

struct PodSummary {
  std::string reason;
  int64_t ready = 0;
  int64_t total = 0;
  int64_t restarts = 0;
  std::optional<core::TimePoint> lastRestart;
};

PodSummary summarize(const Json& pod) {
  PodSummary s;
  const std::string phase = stringAt(pod, {"status", "phase"});
  s.reason = phase;
  if (std::string reason = stringAt(pod, {"status", "reason"}); !reason.empty()) {
    s.reason = reason;
  }
  for (const Json& condition : arrayAt(pod, {"status", "conditions"})) {
    if (stringAt(condition, {"type"}) == "PodScheduled" &&
        stringAt(condition, {"reason"}) == "SchedulingGated") {
      s.reason = "SchedulingGated";
    }
  }

  // Sidecars (init containers with restartPolicy Always) count as pod containers.
  const Json& initContainers = arrayAt(pod, {"spec", "initContainers"});
  std::set<std::string> sidecars;
  for (const Json& container : initContainers) {
    if (stringAt(container, {"restartPolicy"}) == "Always") {
      sidecars.insert(stringAt(container, {"name"}));
    }
  }
  s.total = static_cast<int64_t>(arrayAt(pod, {"spec", "containers"}).size() + sidecars.size());

  int64_t sidecarRestarts = 0;
  std::optional<core::TimePoint> lastSidecarRestart;
  bool initializing = false;
  const Json& initStatuses = arrayAt(pod, {"status", "initContainerStatuses"});
  for (size_t i = 0; i < initStatuses.size(); ++i) {
    const Json& status = initStatuses[i];
    const bool sidecar = sidecars.contains(stringAt(status, {"name"}));
    s.restarts += intAt(status, {"restartCount"});
    noteRestart(status, s.lastRestart);
    if (sidecar) {
      sidecarRestarts += intAt(status, {"restartCount"});
      noteRestart(status, lastSidecarRestart);
    }
    const Json* terminated = member(status, {"state", "terminated"});
    const std::string waiting = stringAt(status, {"state", "waiting", "reason"});
    if (terminated != nullptr && intAt(*terminated, {"exitCode"}) == 0) {
      continue;
    }
    if (sidecar && boolAt(status, {"started"})) {
      s.ready += boolAt(status, {"ready"}) ? 1 : 0;
      continue;
    }
    if (terminated != nullptr) {
      s.reason = terminatedReason(*terminated, "Init:");
    } else if (!waiting.empty() && waiting != "PodInitializing") {
      s.reason = "Init:" + waiting;
    } else {
      s.reason = "Init:" + std::to_string(i) + "/" + std::to_string(initContainers.size());
    }
    initializing = true;
    break;
  }

  if (!initializing || hasCondition(pod, "Initialized")) {
    s.restarts = sidecarRestarts;
    s.lastRestart = lastSidecarRestart;
    bool hasRunning = false;
    const Json& statuses = arrayAt(pod, {"status", "containerStatuses"});
    // Backwards, so that the first container with a reason sets it.
    for (auto it = statuses.rbegin(); it != statuses.rend(); ++it) {
      const Json& status = *it;
      s.restarts += intAt(status, {"restartCount"});
      noteRestart(status, s.lastRestart);
      const Json* terminated = member(status, {"state", "terminated"});
      const std::string waiting = stringAt(status, {"state", "waiting", "reason"});
      if (!waiting.empty()) {
        s.reason = waiting;
      } else if (terminated != nullptr) {
        s.reason = terminatedReason(*terminated, "");
      } else if (boolAt(status, {"ready"}) && member(status, {"state", "running"}) != nullptr) {
        hasRunning = true;
        ++s.ready;
      }
    }
    if (s.reason == "Completed" && hasRunning) {
      s.reason = hasCondition(pod, "Ready") ? "Running" : "NotReady";
    }
  }

  const Json* deletion = member(pod, {"metadata", "deletionTimestamp"});
  if (deletion != nullptr && !deletion->is_null()) {
    if (stringAt(pod, {"status", "reason"}) == "NodeLost") {
      s.reason = "Unknown";
    } else if (phase != "Succeeded" && phase != "Failed") {
      s.reason = "Terminating";
    }
  }
  return s;
}

std::string orNone(std::string value) {
  return value.empty() ? "<none>" : value;
}

std::string podIP(const Json& pod) {
  const Json& ips = arrayAt(pod, {"status", "podIPs"});
  // Objects written with only the singular field read as v1 conversion fills podIPs from it.
  return ips.empty() ? stringAt(pod, {"status", "podIP"}) : stringAt(ips[0], {"ip"});
}

std::string readinessGates(const Json& pod) {
  const Json& gates = arrayAt(pod, {"spec", "readinessGates"});
  if (gates.empty()) {
    return "<none>";
  }
  int64_t satisfied = 0;
  for (const Json& gate : gates) {
    const std::string type = stringAt(gate, {"conditionType"});
    for (const Json& condition : arrayAt(pod, {"status", "conditions"})) {
      if (stringAt(condition, {"type"}) == type) {
        satisfied += stringAt(condition, {"status"}) == "True" ? 1 : 0;
        break;
      }
    }
  }
  return std::to_string(satisfied) + "/" + std::to_string(gates.size());
}

Json completedCondition(const std::string& phase) {
  const bool succeeded = phase == "Succeeded";
  return Json::array(
      {Json{{"type", "Completed"},
            {"status", "True"},
            {"reason", phase},
            {"message", succeeded ? "The pod has completed successfully." : "The pod failed."}}});
}

Row printPod(const Json& pod, core::TimePoint now) {
  const PodSummary s = summarize(pod);
  std::string restarts = std::to_string(s.restarts);
  if (s.restarts != 0 && s.lastRestart) {
    restarts += " (" + humanDuration(now - *s.lastRestart) + " ago)";
  }
  Row row;
  row.cells = {Json(nameOf(pod)),
               Json(std::to_string(s.ready) + "/" + std::to_string(s.total)),
               Json(s.reason),
               Json(restarts),
               Json(ageOf(pod, now)),
               Json(orNone(podIP(pod))),
               Json(orNone(stringAt(pod, {"spec", "nodeName"}))),
               Json(orNone(stringAt(pod, {"status", "nominatedNodeName"}))),
               Json(readinessGates(pod))};
  const std::string phase = stringAt(pod, {"status", "phase"});
  if (phase == "Succeeded" || phase == "Failed") {
    row.conditions = completedCondition(phase);
  }
  return row;
}

}  // namespace

Printer podPrinter() {
  Printer printer;
  printer.columns = {
      nameColumn(),
      {"Ready", "string", "", "The aggregate readiness state of this pod for accepting traffic.",
       0},
      {"Status", "string", "", "The aggregate status of the containers in this pod.", 0},
      {"Restarts", "string", "",
       "The number of times the containers in this pod have been restarted and when the last "
       "container in this pod has restarted.",
       0},
      ageColumn(),
      {"IP", "string", "",
       "podIP address allocated to the pod. Routable at least within the cluster. Empty if not "
       "yet allocated.",
       1},
      {"Node", "string", "",
       "NodeName indicates in which node this pod is scheduled. If empty, this pod is a "
       "candidate for scheduling by the scheduler defined in schedulerName.",
       1},
      {"Nominated Node", "string", "",
       "nominatedNodeName is set only when this pod preempts other pods on the node, but it "
       "cannot be scheduled right away as preemption victims receive their graceful "
       "termination periods.",
       1},
      {"Readiness Gates", "string", "",
       "If specified, all readiness gates will be evaluated for pod readiness.", 1},
  };
  printer.print = printPod;
  return printer;
}

}  // namespace nodewright::apiserver::table
