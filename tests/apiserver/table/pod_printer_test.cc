#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "apiserver/table/table.h"

// kubectl get pods, printed by the server as kube-apiserver's printPod does.
namespace nodewright::apiserver {
namespace {

using api::Json;

const core::TimePoint kNow = core::Time::parse("2024-05-01T12:00:00Z")->point();

Resource podResource() {
  Resource r;
  r.version = "v1";
  r.kind = "Pod";
  r.plural = "pods";
  r.namespaced = true;
  return r;
}

Json podTable(const Json& pod) {
  auto table = objectTable(podResource(), pod, kNow);
  EXPECT_TRUE(table.has_value());
  return table.value_or(Json());
}

Json cells(const Json& pod) {
  return podTable(pod).at("rows").at(0).at("cells");
}

// A two-container pod; `status` is merged over a running, half-ready status.
Json pod(const char* status, const char* extra = "{}") {
  Json p = Json::parse(R"({
    "metadata": {"name": "web", "namespace": "dev", "creationTimestamp": "2024-05-01T11:00:00Z"},
    "spec": {"nodeName": "node-1", "containers": [{"name": "app"}, {"name": "proxy"}]},
    "status": {"phase": "Running", "podIP": "10.1.0.5",
      "containerStatuses": [
        {"name": "app", "ready": true, "restartCount": 0, "state": {"running": {}}},
        {"name": "proxy", "ready": false, "restartCount": 0, "state": {"running": {}}}]}
  })");
  p["status"].merge_patch(Json::parse(status));
  p.merge_patch(Json::parse(extra));
  return p;
}

TEST(PodPrinterTest, ColumnsMatchKubectl) {
  const Json columns = podTable(pod("{}")).at("columnDefinitions");
  std::vector<std::string> names;
  std::vector<int> priorities;
  for (const Json& column : columns) {
    names.push_back(column.at("name"));
    priorities.push_back(column.at("priority"));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"Name", "Ready", "Status", "Restarts", "Age", "IP",
                                             "Node", "Nominated Node", "Readiness Gates"}));
  EXPECT_EQ(priorities, (std::vector<int>{0, 0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(columns[0].at("format"), "name");
  EXPECT_EQ(columns[3].at("type"), "string");
}

TEST(PodPrinterTest, RunningPodWithWideCells) {
  EXPECT_EQ(cells(pod("{}")), Json::parse(R"(["web", "1/2", "Running", "0", "60m", "10.1.0.5",
                                              "node-1", "<none>", "<none>"])"));
}

TEST(PodPrinterTest, PodIPsWinOverTheSingularField) {
  const Json c = cells(pod(R"({"podIPs": [{"ip": "fd00::5"}, {"ip": "10.1.0.5"}]})"));
  EXPECT_EQ(c[5], "fd00::5");
  const Json none = cells(pod(R"({"podIP": null})", R"({"spec": {"nodeName": null}})"));
  EXPECT_EQ(none[5], "<none>");
  EXPECT_EQ(none[6], "<none>");
}

TEST(PodPrinterTest, RestartsShowTheLatestRestartAge) {
  const Json c = cells(pod(R"({"containerStatuses": [
      {"name": "app", "ready": true, "restartCount": 2, "state": {"running": {}},
       "lastState": {"terminated": {"finishedAt": "2024-05-01T11:50:00Z"}}},
      {"name": "proxy", "ready": true, "restartCount": 1, "state": {"running": {}},
       "lastState": {"terminated": {"finishedAt": "2024-05-01T11:57:00Z"}}}]})"));
  EXPECT_EQ(c[1], "2/2");
  EXPECT_EQ(c[3], "3 (3m ago)");
}

TEST(PodPrinterTest, FirstContainerWithAReasonSetsTheStatus) {
  const Json c = cells(pod(R"({"containerStatuses": [
      {"name": "app", "ready": false, "restartCount": 4,
       "state": {"waiting": {"reason": "CrashLoopBackOff"}}},
      {"name": "proxy", "ready": false, "state": {"terminated": {"exitCode": 2}}}]})"));
  EXPECT_EQ(c[1], "0/2");
  EXPECT_EQ(c[2], "CrashLoopBackOff");
  EXPECT_EQ(c[3], "4");  // no last termination time: no "ago"
}

TEST(PodPrinterTest, TerminatedContainersWithoutReasonShowSignalOrExitCode) {
  EXPECT_EQ(cells(pod(R"({"containerStatuses": [
      {"name": "app", "state": {"terminated": {"exitCode": 137, "signal": 9}}}]})"))[2],
            "Signal:9");
  EXPECT_EQ(cells(pod(R"({"containerStatuses": [
      {"name": "app", "state": {"terminated": {"exitCode": 2}}}]})"))[2],
            "ExitCode:2");
}

TEST(PodPrinterTest, CompletedWithARunningContainerReadsRunningOrNotReady) {
  const char* statuses = R"({"containerStatuses": [
      {"name": "app", "state": {"terminated": {"reason": "Completed", "exitCode": 0}}},
      {"name": "proxy", "ready": true, "state": {"running": {}}}]%s})";
  std::string ready = statuses;
  ready.replace(ready.find("%s"), 2, R"(, "conditions": [{"type": "Ready", "status": "True"}])");
  std::string notReady = statuses;
  notReady.replace(notReady.find("%s"), 2, "");
  EXPECT_EQ(cells(pod(ready.c_str()))[2], "Running");
  EXPECT_EQ(cells(pod(notReady.c_str()))[2], "NotReady");
}

TEST(PodPrinterTest, InitContainersReportProgress) {
  const char* spec = R"({"spec": {"initContainers": [{"name": "i1"}, {"name": "i2"}]}})";
  EXPECT_EQ(cells(pod(R"({"phase": "Pending", "containerStatuses": null, "initContainerStatuses": [
      {"name": "i1", "state": {"terminated": {"exitCode": 0}}},
      {"name": "i2", "state": {"waiting": {"reason": "PodInitializing"}}}]})",
                      spec))[2],
            "Init:1/2");
  EXPECT_EQ(cells(pod(R"({"phase": "Pending", "initContainerStatuses": [
      {"name": "i1", "restartCount": 3, "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]})",
                      spec)),
            Json::parse(R"(["web", "0/2", "Init:CrashLoopBackOff", "3", "60m", "10.1.0.5",
                            "node-1", "<none>", "<none>"])"));
  EXPECT_EQ(cells(pod(R"({"phase": "Pending", "initContainerStatuses": [
      {"name": "i1", "state": {"terminated": {"exitCode": 1, "reason": "Error"}}}]})",
                      spec))[2],
            "Init:Error");
  EXPECT_EQ(cells(pod(R"({"phase": "Pending", "initContainerStatuses": [
      {"name": "i1", "state": {"terminated": {"exitCode": 1, "signal": 15}}}]})",
                      spec))[2],
            "Init:Signal:15");
}

TEST(PodPrinterTest, StartedSidecarsCountAsReadyContainers) {
  const Json c = cells(pod(R"({"initContainerStatuses": [
      {"name": "mesh", "started": true, "ready": true, "restartCount": 2,
       "state": {"running": {}}}]})",
                           R"({"spec": {"initContainers": [{"name": "mesh",
                                                            "restartPolicy": "Always"}]}})"));
  EXPECT_EQ(c[1], "2/3");
  EXPECT_EQ(c[2], "Running");
  EXPECT_EQ(c[3], "2");  // sidecar restarts stay counted once initialized
}

TEST(PodPrinterTest, DeletingPodsAreTerminatingUnlessTheNodeIsLost) {
  const char* deleting = R"({"metadata": {"deletionTimestamp": "2024-05-01T11:59:00Z"}})";
  EXPECT_EQ(cells(pod("{}", deleting))[2], "Terminating");
  EXPECT_EQ(cells(pod(R"({"reason": "NodeLost"})", deleting))[2], "Unknown");
  EXPECT_EQ(cells(pod(R"({"phase": "Succeeded", "containerStatuses": null})", deleting))[2],
            "Succeeded");
}

TEST(PodPrinterTest, SchedulingGatedAndStatusReasons) {
  EXPECT_EQ(cells(pod(R"({"phase": "Pending", "containerStatuses": null, "conditions": [
      {"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}]})"))[2],
            "SchedulingGated");
  EXPECT_EQ(cells(pod(R"({"phase": "Failed", "reason": "Evicted", "containerStatuses": null})"))[2],
            "Evicted");
}

TEST(PodPrinterTest, ReadinessGatesCountTrueConditions) {
  const Json c = cells(pod(R"({"conditions": [{"type": "lb/ready", "status": "True"},
                                              {"type": "other", "status": "False"}]})",
                           R"({"spec": {"readinessGates": [{"conditionType": "lb/ready"},
                                                           {"conditionType": "other"},
                                                           {"conditionType": "absent"}]},
                               "status": {"nominatedNodeName": "node-2"}})"));
  EXPECT_EQ(c[7], "node-2");
  EXPECT_EQ(c[8], "1/3");
}

TEST(PodPrinterTest, FinishedPodsCarryACompletedRowCondition) {
  const Json succeeded = podTable(pod(R"({"phase": "Succeeded", "containerStatuses": null})"));
  EXPECT_EQ(succeeded.at("rows").at(0).at("conditions"),
            Json::parse(R"([{"type": "Completed", "status": "True", "reason": "Succeeded",
                             "message": "The pod has completed successfully."}])"));
  const Json failed = podTable(pod(R"({"phase": "Failed", "containerStatuses": null})"));
  EXPECT_EQ(failed.at("rows").at(0).at("conditions").at(0).at("message"), "The pod failed.");
  EXPECT_FALSE(podTable(pod("{}")).at("rows").at(0).contains("conditions"));
}

}  // namespace
}  // namespace nodewright::apiserver
