#include <string>

#include "apiserver/table/json_access.h"
#include "apiserver/table/printer.h"

// Deployment, ReplicaSet, DaemonSet and PodDisruptionBudget as kube's printers.go prints them.
namespace nodewright::apiserver::table {
namespace {

using api::Json;

constexpr std::string_view kContainersDescription = "Names of each container in the template.";
constexpr std::string_view kImagesDescription =
    "Images referenced by each container in the template.";

Column wide(std::string name, std::string_view description) {
  return {std::move(name), "string", "", std::string(description), 1};
}

const Json& templateSpec(const Json& object) {
  static const Json kEmpty = Json::object();
  const Json* spec = member(object, {"spec", "template", "spec"});
  return spec != nullptr && spec->is_object() ? *spec : kEmpty;
}

// intstr.IntOrString.String(), or "N/A" when unset.
std::string intOrString(const Json* value) {
  if (value == nullptr || value->is_null()) {
    return "N/A";
  }
  if (value->is_string()) {
    return value->get<std::string>();
  }
  return value->is_number() ? std::to_string(value->get<int64_t>()) : "N/A";
}

Row printDeployment(const Json& d, core::TimePoint now) {
  Row row;
  row.cells = {Json(nameOf(d)),
               Json(std::to_string(intAt(d, {"status", "readyReplicas"})) + "/" +
                    std::to_string(intAt(d, {"spec", "replicas"}))),
               Json(intAt(d, {"status", "updatedReplicas"})),
               Json(intAt(d, {"status", "availableReplicas"})), Json(ageOf(d, now))};
  containerCells(templateSpec(d), row);
  row.cells.emplace_back(labelSelectorString(member(d, {"spec", "selector"})));
  return row;
}

Row printReplicaSet(const Json& rs, core::TimePoint now) {
  Row row;
  row.cells = {Json(nameOf(rs)), Json(intAt(rs, {"spec", "replicas"})),
               Json(intAt(rs, {"status", "replicas"})),
               Json(intAt(rs, {"status", "readyReplicas"})), Json(ageOf(rs, now))};
  containerCells(templateSpec(rs), row);
  row.cells.emplace_back(formatLabelSelector(member(rs, {"spec", "selector"})));
  return row;
}

Row printDaemonSet(const Json& ds, core::TimePoint now) {
  Row row;
  row.cells = {Json(nameOf(ds)),
               Json(intAt(ds, {"status", "desiredNumberScheduled"})),
               Json(intAt(ds, {"status", "currentNumberScheduled"})),
               Json(intAt(ds, {"status", "numberReady"})),
               Json(intAt(ds, {"status", "updatedNumberScheduled"})),
               Json(intAt(ds, {"status", "numberAvailable"})),
               Json(formatLabels(member(templateSpec(ds), {"nodeSelector"}))),
               Json(ageOf(ds, now))};
  containerCells(templateSpec(ds), row);
  row.cells.emplace_back(formatLabelSelector(member(ds, {"spec", "selector"})));
  return row;
}

Row printPodDisruptionBudget(const Json& pdb, core::TimePoint now) {
  return Row{{Json(nameOf(pdb)), Json(intOrString(member(pdb, {"spec", "minAvailable"}))),
              Json(intOrString(member(pdb, {"spec", "maxUnavailable"}))),
              Json(intAt(pdb, {"status", "disruptionsAllowed"})), Json(ageOf(pdb, now))},
             Json()};
}

}  // namespace

Printer deploymentPrinter() {
  Printer printer;
  printer.columns = {
      nameColumn(),
      {"Ready", "string", "", "Number of the pod with ready state", 0},
      {"Up-to-date", "string", "",
       "Total number of non-terminated pods targeted by this deployment that have the desired "
       "template spec.",
       0},
      {"Available", "string", "",
       "Total number of available pods (ready for at least minReadySeconds) targeted by this "
       "deployment.",
       0},
      ageColumn(),
      wide("Containers", kContainersDescription),
      wide("Images", kImagesDescription),
      wide("Selector",
           "Label selector for pods. Existing ReplicaSets whose pods are selected by "
           "this will be the ones affected by this deployment."),
  };
  printer.print = printDeployment;
  return printer;
}

Printer replicaSetPrinter() {
  Printer printer;
  printer.columns = {
      nameColumn(),
      {"Desired", "integer", "",
       "Replicas is the number of desired replicas. This is a pointer to distinguish between "
       "explicit zero and unspecified. Defaults to 1.",
       0},
      {"Current", "integer", "", "Replicas is the most recently observed number of replicas.", 0},
      {"Ready", "integer", "",
       "The number of ready replicas for this replica set. A pod is counted as ready when it "
       "has been ready for at least minReadySeconds.",
       0},
      ageColumn(),
      wide("Containers", kContainersDescription),
      wide("Images", kImagesDescription),
      wide("Selector",
           "Selector is a label query over pods that should match the replica "
           "count."),
  };
  printer.print = printReplicaSet;
  return printer;
}

Printer daemonSetPrinter() {
  Printer printer;
  printer.columns = {
      nameColumn(),
      {"Desired", "integer", "",
       "The total number of nodes that should be running the daemon pod (including nodes "
       "correctly running the daemon pod).",
       0},
      {"Current", "integer", "",
       "The number of nodes that are running at least 1 daemon pod and are supposed to run the "
       "daemon pod.",
       0},
      {"Ready", "integer", "",
       "The number of nodes that should be running the daemon pod and have one or more of the "
       "daemon pod running and ready.",
       0},
      {"Up-to-date", "integer", "", "The total number of nodes that are running updated daemon pod",
       0},
      {"Available", "integer", "",
       "The number of nodes that should be running the daemon pod and have one or more of the "
       "daemon pod running and available (ready for at least spec.minReadySeconds)",
       0},
      {"Node Selector", "string", "",
       "NodeSelector is a selector which must be true for the pod to fit on a node.", 0},
      ageColumn(),
      wide("Containers", kContainersDescription),
      wide("Images", kImagesDescription),
      wide("Selector", "A label query over pods that are managed by the daemon set."),
  };
  printer.print = printDaemonSet;
  return printer;
}

Printer podDisruptionBudgetPrinter() {
  Printer printer;
  printer.columns = {
      nameColumn(),
      {"Min Available", "string", "", "The minimum number of pods that must be available.", 0},
      {"Max Unavailable", "string", "", "The maximum number of pods that may be unavailable.", 0},
      {"Allowed Disruptions", "integer", "",
       "Calculated number of pods that may be disrupted at this time.", 0},
      ageColumn(),
  };
  printer.print = printPodDisruptionBudget;
  return printer;
}

}  // namespace nodewright::apiserver::table
