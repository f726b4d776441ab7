// MachineHealthCheck decodes with CAPI's webhook defaults and is refused for the webhook's
// reasons, with its paths and messages.
#include <gtest/gtest.h>

#include "api/capi/machine_health_check.h"
#include "api/capi/manifest_helpers.h"

namespace nodewright::api::capi {
namespace {

using testing::decode;
using testing::decodeValid;
using testing::document;
using testing::errorStrings;

constexpr const char* kHealthCheck = R"(
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachineHealthCheck
metadata:
  name: capz-demo-mhc-0
  namespace: default
spec:
  clusterName: capz-demo
  maxUnhealthy: 100%
  selector:
    matchLabels:
      nodepool: nodepool-0
  unhealthyConditions:
  - type: Ready
    status: Unknown
    timeout: 300s
  - type: Ready
    status: "False"
    timeout: 300s
  remediationTemplate:
    apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
    kind: AzureRemediationTemplate
    name: reboot
)";

TEST(MachineHealthCheckTest, DefaultsTheClusterLabelAndNodeStartupTimeout) {
  auto mhc = decodeValid<MachineHealthCheck>(document(kHealthCheck));
  EXPECT_EQ(mhc.metadata.labels.at(kClusterNameLabel), "capz-demo");
  ASSERT_TRUE(mhc.spec.nodeStartupTimeout.has_value());
  EXPECT_EQ(mhc.spec.nodeStartupTimeout->toString(), "10m0s");
  ASSERT_EQ(mhc.spec.unhealthyConditions.size(), 2u);
  EXPECT_EQ(mhc.spec.unhealthyConditions[1].status, "False");
  EXPECT_EQ(mhc.spec.maxUnhealthy, IntOrString::ofString("100%"));
}

TEST(MachineHealthCheckTest, RejectsWhatTheWebhookRejects) {
  Json doc = document(kHealthCheck);
  doc["spec"]["selector"] = Json::object();
  doc["spec"]["nodeStartupTimeout"] = "10s";
  doc["spec"]["maxUnhealthy"] = "half";
  doc["spec"]["unhealthyRange"] = "3-5";
  EXPECT_EQ(errorStrings(decode(doc).errors),
            (std::vector<std::string>{
                "spec.selector: Required value: selector must not be empty",
                "spec.checks.nodeStartupTimeoutSeconds: Invalid value: 10: must be at least 30s",
                "spec.remediation.triggerIf.unhealthyLessThanOrEqualTo: Invalid value: \"half\": "
                "must be either an int or a percentage: invalid value for IntOrString: invalid "
                "type: string is not a percentage",
                "spec.unhealthyRange: Invalid value: \"3-5\": spec.unhealthyRange in body should "
                "match '^\\[[0-9]+-[0-9]+\\]$'"}));
}

TEST(MachineHealthCheckTest, RejectsASelectorForAnotherCluster) {
  Json doc = document(kHealthCheck);
  doc["spec"]["selector"]["matchLabels"][kClusterNameLabel] = "other";
  std::vector<std::string> errors = errorStrings(decode(doc).errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("spec.selector: Invalid value: "), std::string::npos);
  EXPECT_NE(errors[0].find("cannot specify a cluster selector other than the one specified by "
                           "ClusterName"),
            std::string::npos);
}

TEST(MachineHealthCheckTest, RejectsMachineConditionsCapiOwns) {
  Json doc = document(kHealthCheck);
  doc["spec"]["unhealthyMachineConditions"] =
      Json::array({Json{{"type", "Ready"}, {"status", "False"}, {"timeout", "5m"}}});
  EXPECT_EQ(errorStrings(decode(doc).errors),
            std::vector<std::string>{
                "spec.unhealthyMachineConditions[0].type: Invalid value: \"Ready\": type must not "
                "be one of: Ready, Available, HealthCheckSucceeded, OwnerRemediated, "
                "ExternallyRemediated"});
}

}  // namespace
}  // namespace nodewright::api::capi
