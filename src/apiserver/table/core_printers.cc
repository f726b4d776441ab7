#include <algorithm>
#include <cctype>
#include <set>
#include <string>

#include "apiserver/table/human_duration.h"
#include "apiserver/table/json_access.h"
#include "apiserver/table/printer.h"

// Node, Namespace, Event, Secret, ConfigMap and Lease as kube's printers.go prints them.
namespace nodewright::apiserver::table {
namespace {

using api::Json;

constexpr std::string_view kNodeRolePrefix = "node-role.kubernetes.io/";
constexpr std::string_view kNodeRoleLabel = "kubernetes.io/role";

std::string nodeStatus(const Json& node) {
  // Only the Ready condition is reported; the last one listed wins, as in a Go map.
  std::string status;
  for (const Json& condition : arrayAt(node, {"status", "conditions"})) {
    if (stringAt(condition, {"type"}) == "Ready") {
      status = stringAt(condition, {"status"}) == "True" ? "Ready" : "NotReady";
    }
  }
  if (status.empty()) {
    status = "Unknown";
  }
  if (boolAt(node, {"spec", "unschedulable"})) {
    status += ",SchedulingDisabled";
  }
  return status;
}

std::string nodeRoles(const Json& node) {
  std::set<std::string> roles;
  const Json* labels = member(node, {"metadata", "labels"});
  if (labels != nullptr && labels->is_object()) {
    for (const auto& [key, value] : labels->items()) {
      if (key.starts_with(kNodeRolePrefix) && key.size() > kNodeRolePrefix.size()) {
        roles.insert(key.substr(kNodeRolePrefix.size()));
      } else if (key == kNodeRoleLabel && value.is_string() && !value.get<std::string>().empty()) {
        roles.insert(value.get<std::string>());
      }
    }
  }
  std::string out;
  for (const std::string& role : roles) {
    out += (out.empty() ? "" : ",") + role;
  }
  return out.empty() ? "<none>" : out;
}

std::string nodeAddress(const Json& node, std::string_view type) {
  for (const Json& address : arrayAt(node, {"status", "addresses"})) {
    if (stringAt(address, {"type"}) == type) {
      return stringAt(address, {"address"});
    }
  }
  return "<none>";
}

std::string orUnknown(std::string value) {
  return value.empty() ? "<unknown>" : value;
}

Row printNode(const Json& node, core::TimePoint now) {
  Row row;
  row.cells = {Json(nameOf(node)),
               Json(nodeStatus(node)),
               Json(nodeRoles(node)),
               Json(ageOf(node, now)),
               Json(stringAt(node, {"status", "nodeInfo", "kubeletVersion"})),
               Json(nodeAddress(node, "InternalIP")),
               Json(nodeAddress(node, "ExternalIP")),
               Json(orUnknown(stringAt(node, {"status", "nodeInfo", "osImage"}))),
               Json(orUnknown(stringAt(node, {"status", "nodeInfo", "kernelVersion"}))),
               Json(orUnknown(stringAt(node, {"status", "nodeInfo", "containerRuntimeVersion"})))};
  return row;
}

// metav1.MicroTime and metav1.Time read the same way here.
std::string eventAge(const Json& event, std::initializer_list<std::string_view> path,
                     core::TimePoint now) {
  return ageSince(member(event, path), now);
}

std::string eventSource(const Json& event) {
  std::string component = stringAt(event, {"source", "component"});
  if (component.empty()) {
    component = stringAt(event, {"reportingComponent"});
  }
  std::string host = stringAt(event, {"source", "host"});
  if (host.empty()) {
    host = stringAt(event, {"reportingInstance"});
  }
  return host.empty() ? component : component + ", " + host;
}

std::string trimSpace(const std::string& s) {
  const auto space = [](unsigned char c) { return std::isspace(c) != 0; };
  auto first = std::find_if_not(s.begin(), s.end(), space);
  auto last = std::find_if_not(s.rbegin(), s.rend(), space).base();
  return first < last ? std::string(first, last) : std::string();
}

Row printEvent(const Json& event, core::TimePoint now) {
  std::string first = parseTimestamp(member(event, {"firstTimestamp"}))
                          ? eventAge(event, {"firstTimestamp"}, now)
                          : eventAge(event, {"eventTime"}, now);
  std::string last = parseTimestamp(member(event, {"lastTimestamp"}))
                         ? eventAge(event, {"lastTimestamp"}, now)
                         : first;
  int64_t count = intAt(event, {"count"});
  const Json* series = member(event, {"series"});
  if (series != nullptr && series->is_object()) {
    last = eventAge(*series, {"lastObservedTime"}, now);
    count = intAt(*series, {"count"});
  } else if (count == 0) {
    count = 1;  // singleton events of the events.k8s.io API carry no count
  }
  std::string kind = stringAt(event, {"involvedObject", "kind"});
  std::transform(kind.begin(), kind.end(), kind.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const std::string name = stringAt(event, {"involvedObject", "name"});
  Row row;
  row.cells = {Json(last),
               Json(stringAt(event, {"type"})),
               Json(stringAt(event, {"reason"})),
               Json(name.empty() ? kind : kind + "/" + name),
               Json(stringAt(event, {"involvedObject", "fieldPath"})),
               Json(eventSource(event)),
               Json(trimSpace(stringAt(event, {"message"}))),
               Json(first),
               Json(count),
               Json(nameOf(event))};
  return row;
}

}  // namespace

Printer nodePrinter() {
  Printer printer;
  printer.columns = {
      nameColumn(),
      {"Status", "string", "", "The status of the node", 0},
      {"Roles", "string", "", "The roles of the node", 0},
      ageColumn(),
      {"Version", "string", "", "Kubelet Version reported by the node.", 0},
      {"Internal-IP", "string", "", "List of addresses reachable to the node.", 1},
      {"External-IP", "string", "", "List of addresses reachable to the node.", 1},
      {"OS-Image", "string", "", "OS Image reported by the node from /etc/os-release.", 1},
      {"Kernel-Version", "string", "", "Kernel Version reported by the node.", 1},
      {"Container-Runtime", "string", "", "ContainerRuntime Version reported by the node.", 1},
  };
  printer.print = printNode;
  return printer;
}

Printer namespacePrinter() {
  Printer printer;
  printer.columns = {
      nameColumn(), {"Status", "string", "", "The status of the namespace", 0}, ageColumn()};
  printer.print = [](const Json& ns, core::TimePoint now) {
    return Row{{Json(nameOf(ns)), Json(stringAt(ns, {"status", "phase"})), Json(ageOf(ns, now))},
               Json()};
  };
  return printer;
}

Printer eventPrinter() {
  Printer printer;
  // Events lead with LAST SEEN; their name is a wide column.
  Column name = nameColumn();
  name.priority = 1;
  printer.columns = {
      {"Last Seen", "string", "",
       "The time at which the most recent occurrence of this event "
       "was recorded.",
       0},
      {"Type", "string", "",
       "Type of this event (Normal, Warning), new types could be added "
       "in the future",
       0},
      {"Reason", "string", "",
       "This should be a short, machine understandable string that "
       "gives the reason for the transition into the object's current "
       "status.",
       0},
      {"Object", "string", "", "The object that this event is about.", 0},
      {"Subobject", "string", "", "The field of the object this event is about.", 1},
      {"Source", "string", "", "The component reporting this event.", 1},
      {"Message", "string", "",
       "A human-readable description of the status of this "
       "operation.",
       0},
      {"First Seen", "string", "", "The time at which the event was first recorded.", 1},
      {"Count", "string", "", "The number of times this event has occurred.", 1},
      std::move(name),
  };
  printer.print = printEvent;
  return printer;
}

Printer secretPrinter() {
  Printer printer;
  printer.columns = {nameColumn(),
                     {"Type", "string", "",
                      "Used to facilitate programmatic handling of "
                      "secret data.",
                      0},
                     {"Data", "string", "", "Data contains the secret data.", 0},
                     ageColumn()};
  printer.print = [](const Json& secret, core::TimePoint now) {
    return Row{{Json(nameOf(secret)), Json(stringAt(secret, {"type"})),
                Json(sizeAt(secret, {"data"})), Json(ageOf(secret, now))},
               Json()};
  };
  return printer;
}

Printer configMapPrinter() {
  Printer printer;
  printer.columns = {nameColumn(),
                     {"Data", "string", "", "Data contains the configuration data.", 0},
                     ageColumn()};
  printer.print = [](const Json& cm, core::TimePoint now) {
    const int64_t entries = sizeAt(cm, {"data"}) + sizeAt(cm, {"binaryData"});
    return Row{{Json(nameOf(cm)), Json(entries), Json(ageOf(cm, now))}, Json()};
  };
  return printer;
}

Printer leasePrinter() {
  Printer printer;
  printer.columns = {nameColumn(),
                     {"Holder", "string", "",
                      "holderIdentity contains the identity of the "
                      "holder of a current lease.",
                      0},
                     ageColumn()};
  printer.print = [](const Json& lease, core::TimePoint now) {
    return Row{{Json(nameOf(lease)), Json(stringAt(lease, {"spec", "holderIdentity"})),
                Json(ageOf(lease, now))},
               Json()};
  };
  return printer;
}

}  // namespace nodewright::apiserver::table
