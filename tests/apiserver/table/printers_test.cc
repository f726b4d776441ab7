#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "apiserver/table/table.h"

// Built-in kinds other than Pod, as kube-apiserver's printers print them.
namespace nodewright::apiserver {
namespace {

using api::Json;

const core::TimePoint kNow = core::Time::parse("2024-05-01T12:00:00Z")->point();

Json table(std::string group, std::string kind, const char* object) {
  Resource r;
  r.group = std::move(group);
  r.version = "v1";
  r.kind = std::move(kind);
  // Columns a builtin printer must ignore.
  r.printerColumns = {{"Ignored", "string", ".metadata.uid", "", 0}};
  auto t = objectTable(r, Json::parse(object), kNow);
  EXPECT_TRUE(t.has_value());
  return t.value_or(Json());
}

Json cells(std::string group, std::string kind, const char* object) {
  return table(std::move(group), std::move(kind), object).at("rows").at(0).at("cells");
}

std::vector<std::string> columnNames(const Json& t) {
  std::vector<std::string> names;
  for (const Json& column : t.at("columnDefinitions")) {
    names.push_back(column.at("name"));
  }
  return names;
}

TEST(NodePrinterTest, PrintsStatusRolesAndWideColumns) {
  const char* node = R"({
    "metadata": {"name": "n1", "creationTimestamp": "2024-04-29T07:00:00Z",
      "labels": {"node-role.kubernetes.io/worker": "", "node-role.kubernetes.io/control-plane": "",
                 "kubernetes.io/role": "infra", "node-role.kubernetes.io/": "x"}},
    "spec": {"unschedulable": true},
    "status": {"conditions": [{"type": "MemoryPressure", "status": "False"},
                              {"type": "Ready", "status": "False"}],
      "addresses": [{"type": "Hostname", "address": "n1"},
                    {"type": "InternalIP", "address": "10.0.0.1"}],
      "nodeInfo": {"kubeletVersion": "v1.30.1", "osImage": "Ubuntu 22.04"}}
  })";
  EXPECT_EQ(
      columnNames(table("", "Node", node)),
      (std::vector<std::string>{"Name", "Status", "Roles", "Age", "Version", "Internal-IP",
                                "External-IP", "OS-Image", "Kernel-Version", "Container-Runtime"}));
  EXPECT_EQ(cells("", "Node", node),
            Json::parse(R"(["n1", "NotReady,SchedulingDisabled", "control-plane,infra,worker",
                            "2d5h", "v1.30.1", "10.0.0.1", "<none>", "Ubuntu 22.04",
                            "<unknown>", "<unknown>"])"));
}

TEST(NodePrinterTest, ReadyAndUnknownNodes) {
  EXPECT_EQ(cells("", "Node", R"({"metadata": {"name": "a"},
      "status": {"conditions": [{"type": "Ready", "status": "True"}]}})")[1],
            "Ready");
  const Json bare = cells("", "Node", R"({"metadata": {"name": "b"}})");
  EXPECT_EQ(bare[1], "Unknown");
  EXPECT_EQ(bare[2], "<none>");
  EXPECT_EQ(bare[3], "<unknown>");
}

TEST(NamespacePrinterTest, PrintsPhase) {
  EXPECT_EQ(cells("", "Namespace", R"({"metadata": {"name": "dev",
      "creationTimestamp": "2024-05-01T11:59:50Z"}, "status": {"phase": "Active"}})"),
            Json::parse(R"(["dev", "Active", "10s"])"));
}

TEST(EventPrinterTest, LeadsWithLastSeenAndNamesTheObject) {
  const char* event = R"({
    "metadata": {"name": "web.17c", "namespace": "dev"},
    "involvedObject": {"kind": "Pod", "name": "web", "fieldPath": "spec.containers{app}"},
    "reason": "BackOff", "type": "Warning", "message": "  Back-off restarting  \n",
    "source": {"component": "kubelet", "host": "node-1"},
    "firstTimestamp": "2024-05-01T11:00:00Z", "lastTimestamp": "2024-05-01T11:58:00Z",
    "count": 7
  })";
  const Json t = table("", "Event", event);
  EXPECT_EQ(columnNames(t),
            (std::vector<std::string>{"Last Seen", "Type", "Reason", "Object", "Subobject",
                                      "Source", "Message", "First Seen", "Count", "Name"}));
  EXPECT_EQ(t.at("columnDefinitions")[9].at("priority"), 1);
  EXPECT_EQ(t.at("columnDefinitions")[9].at("format"), "name");
  EXPECT_EQ(t.at("rows")[0].at("cells"),
            Json::parse(R"(["2m", "Warning", "BackOff", "pod/web", "spec.containers{app}",
                            "kubelet, node-1", "Back-off restarting", "60m", 7, "web.17c"])"));
}

TEST(EventPrinterTest, NewStyleEventsUseEventTimeSeriesAndReportingFields) {
  const Json c = cells("", "Event", R"({
    "metadata": {"name": "e"}, "involvedObject": {"kind": "Node"},
    "eventTime": "2024-05-01T11:30:00.000000Z", "reportingComponent": "karpenter",
    "reportingInstance": "karpenter-0"
  })");
  EXPECT_EQ(c[0], "30m");
  EXPECT_EQ(c[3], "node");
  EXPECT_EQ(c[5], "karpenter, karpenter-0");
  EXPECT_EQ(c[7], "30m");
  EXPECT_EQ(c[8], 1);
  const Json series = cells("", "Event", R"({
    "metadata": {"name": "e"}, "eventTime": "2024-05-01T11:30:00.000000Z",
    "series": {"count": 4, "lastObservedTime": "2024-05-01T11:59:00.000000Z"}
  })");
  EXPECT_EQ(series[0], "60s");
  EXPECT_EQ(series[8], 4);
  EXPECT_EQ(series[5], "");
}

TEST(SecretPrinterTest, CountsData) {
  EXPECT_EQ(cells("", "Secret", R"({"metadata": {"name": "s"}, "type": "Opaque",
                                    "data": {"a": "eA==", "b": "eQ=="}})"),
            Json::parse(R"(["s", "Opaque", 2, "<unknown>"])"));
}

TEST(ConfigMapPrinterTest, CountsDataAndBinaryData) {
  EXPECT_EQ(cells("", "ConfigMap", R"({"metadata": {"name": "c"}, "data": {"a": "1"},
                                       "binaryData": {"b": "eA=="}})")[1],
            2);
  EXPECT_EQ(cells("", "ConfigMap", R"({"metadata": {"name": "c"}})")[1], 0);
}

TEST(LeasePrinterTest, PrintsHolder) {
  EXPECT_EQ(cells("coordination.k8s.io", "Lease", R"({"metadata": {"name": "l"},
                                                     "spec": {"holderIdentity": "node-1"}})"),
            Json::parse(R"(["l", "node-1", "<unknown>"])"));
}

const char* kDeployment = R"({
  "metadata": {"name": "web", "creationTimestamp": "2024-05-01T11:59:00Z"},
  "spec": {"replicas": 3,
    "selector": {"matchLabels": {"app": "web"},
                 "matchExpressions": [{"key": "tier", "operator": "In", "values": ["b", "a"]}]},
    "template": {"spec": {"containers": [{"name": "app", "image": "web:1"},
                                         {"name": "proxy", "image": "envoy:2"}],
                          "nodeSelector": {"zone": "z1", "arch": "arm64"}}}},
  "status": {"readyReplicas": 2, "updatedReplicas": 3, "availableReplicas": 2,
             "replicas": 3, "desiredNumberScheduled": 4, "currentNumberScheduled": 4,
             "numberReady": 3, "updatedNumberScheduled": 2, "numberAvailable": 1}
})";

TEST(DeploymentPrinterTest, PrintsReadyOverDesired) {
  const Json t = table("apps", "Deployment", kDeployment);
  EXPECT_EQ(columnNames(t), (std::vector<std::string>{"Name", "Ready", "Up-to-date", "Available",
                                                      "Age", "Containers", "Images", "Selector"}));
  EXPECT_EQ(t.at("rows")[0].at("cells"),
            Json::parse(R"j(["web", "2/3", 3, 2, "60s", "app,proxy", "web:1,envoy:2",
                            "app=web,tier in (a,b)"])j"));
}

TEST(DeploymentPrinterTest, InvalidSelectorsPrintInvalid) {
  const Json c = cells("apps", "Deployment", R"({"metadata": {"name": "d"},
      "spec": {"selector": {"matchExpressions": [{"key": "k", "operator": "Near"}]}}})");
  EXPECT_EQ(c[1], "0/0");
  EXPECT_EQ(c[5], "");
  EXPECT_EQ(c[7], "<invalid>");
  EXPECT_EQ(cells("apps", "Deployment", R"({"metadata": {"name": "d"}})")[7], "");
}

TEST(ReplicaSetPrinterTest, PrintsCountsAndFormattedSelector) {
  EXPECT_EQ(cells("apps", "ReplicaSet", kDeployment),
            Json::parse(R"j(["web", 3, 3, 2, "60s", "app,proxy", "web:1,envoy:2",
                            "app=web,tier in (a,b)"])j"));
  EXPECT_EQ(cells("apps", "ReplicaSet", R"({"metadata": {"name": "r"}})")[7], "<none>");
  EXPECT_EQ(cells("apps", "ReplicaSet", R"({"metadata": {"name": "r"}, "spec": {"selector":
      {"matchExpressions": [{"key": "k", "operator": "In", "values": []}]}}})")[7],
            "<error>");
}

TEST(DaemonSetPrinterTest, PrintsSchedulingCountsAndNodeSelector) {
  EXPECT_EQ(cells("apps", "DaemonSet", kDeployment),
            Json::parse(R"j(["web", 4, 4, 3, 2, 1, "arch=arm64,zone=z1", "60s", "app,proxy",
                            "web:1,envoy:2", "app=web,tier in (a,b)"])j"));
  EXPECT_EQ(cells("apps", "DaemonSet", R"({"metadata": {"name": "d"}})")[6], "<none>");
}

TEST(PodDisruptionBudgetPrinterTest, PrintsIntOrStringBounds) {
  EXPECT_EQ(cells("policy", "PodDisruptionBudget", R"({"metadata": {"name": "p"},
      "spec": {"minAvailable": 2}, "status": {"disruptionsAllowed": 1}})"),
            Json::parse(R"(["p", "2", "N/A", 1, "<unknown>"])"));
  EXPECT_EQ(cells("policy", "PodDisruptionBudget", R"({"metadata": {"name": "p"},
      "spec": {"maxUnavailable": "25%"}})"),
            Json::parse(R"(["p", "N/A", "25%", 0, "<unknown>"])"));
}

}  // namespace
}  // namespace nodewright::apiserver
