#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "deploy_support.h"
#include "support/apiserver/process.h"
#include "support/apiserver/test_server.h"

// deploy/: the overlays render, carry their cloud's settings, use only flags the controller
// has, keep their roles narrow, and an API server accepts them (server-side dry run).
namespace nodewright::e2e {
namespace {

using deploy::render;
using deploy::text;

// What prometheus-operator installs for ServiceMonitor, reduced to what an API server needs.
constexpr const char* kServiceMonitorCrd = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: servicemonitors.monitoring.coreos.com
spec:
  group: monitoring.coreos.com
  names:
    kind: ServiceMonitor
    listKind: ServiceMonitorList
    plural: servicemonitors
    singular: servicemonitor
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
)";

const api::Json& deployment(const std::vector<api::Json>& docs) {
  static const api::Json kNone = api::Json::object();
  const api::Json* found = deploy::find(docs, "Deployment", "nodewright", "nodewright");
  EXPECT_NE(found, nullptr) << "no Deployment nodewright/nodewright";
  return found != nullptr ? *found : kNone;
}

const api::Json& container(const std::vector<api::Json>& docs) {
  static const api::Json kNone = api::Json::object();
  const api::Json& d = deployment(docs);
  if (!d.contains("spec")) {
    return kNone;
  }
  return d.at("spec").at("template").at("spec").at("containers").at(0);
}

std::vector<std::string> args(const std::vector<api::Json>& docs) {
  return deploy::strings(container(docs), "args");
}

bool hasArg(const std::vector<api::Json>& docs, const std::string& arg) {
  const auto all = args(docs);
  return std::find(all.begin(), all.end(), arg) != all.end();
}

std::string annotation(const std::vector<api::Json>& docs, const std::string& key) {
  const api::Json* sa = deploy::find(docs, "ServiceAccount", "nodewright", "nodewright");
  EXPECT_NE(sa, nullptr) << "no ServiceAccount nodewright/nodewright";
  return sa == nullptr ? ""
                       : text(sa->at("metadata").value("annotations", api::Json()), key.c_str());
}

TEST(DeployManifests, TheAwsOverlayRunsKarpenterWithIrsa) {
  const auto docs = render("overlays/aws");
  ASSERT_FALSE(docs.empty());
  EXPECT_EQ(deployment(docs).at("spec").value("replicas", 0), 2);
  EXPECT_TRUE(hasArg(docs, "controller"));
  EXPECT_TRUE(hasArg(docs, "--leader-elect"));
  EXPECT_TRUE(hasArg(docs, "--cluster-name=$(CLUSTER_NAME)")) << fmt::format("{}", args(docs));
  EXPECT_NE(annotation(docs, "eks.amazonaws.com/role-arn"), "");
  const api::Json& pod = deployment(docs).at("spec").at("template").at("spec");
  EXPECT_EQ(text(pod, "priorityClassName"), "system-cluster-critical");
  EXPECT_TRUE(pod.at("securityContext").value("runAsNonRoot", false));
  const api::Json& security = container(docs).at("securityContext");
  EXPECT_TRUE(security.value("readOnlyRootFilesystem", false));
  EXPECT_EQ(deploy::strings(security.at("capabilities"), "drop"), std::vector<std::string>{"ALL"});
  EXPECT_EQ(text(container(docs).at("livenessProbe").at("httpGet"), "path"), "/healthz");
  EXPECT_EQ(text(container(docs).at("readinessProbe").at("httpGet"), "path"), "/readyz");
  EXPECT_NE(deploy::find(docs, "PodDisruptionBudget", "nodewright", "nodewright"), nullptr);
  EXPECT_NE(deploy::find(docs, "ServiceMonitor", "nodewright", "nodewright"), nullptr);
}

TEST(DeployManifests, TheAzureOverlayRunsCapzWithWorkloadIdentity) {
  const auto docs = render("overlays/azure");
  ASSERT_FALSE(docs.empty());
  EXPECT_TRUE(hasArg(docs, "--cloud=azure")) << fmt::format("{}", args(docs));
  EXPECT_TRUE(hasArg(docs, "--leader-elect"));
  EXPECT_NE(annotation(docs, "azure.workload.identity/client-id"), "");
  const api::Json& labels = deployment(docs).at("spec").at("template").at("metadata").at("labels");
  EXPECT_EQ(text(labels, "azure.workload.identity/use"), "true");
}

// Every flag in the container's args is one `nodewright` (global) or `nodewright controller`
// lists in its --help.
TEST(DeployManifests, ContainerArgsAreFlagsTheControllerHas) {
  const auto global = apiserver::testing::runProcess({NW_BINARY, "--help"});
  const auto controller = apiserver::testing::runProcess({NW_BINARY, "controller", "--help"});
  ASSERT_EQ(global.code, 0) << global.err;
  ASSERT_EQ(controller.code, 0) << controller.err;
  for (const char* overlay : {"overlays/aws", "overlays/azure"}) {
    bool afterSubcommand = false;
    for (const std::string& arg : args(render(overlay))) {
      if (arg == "controller") {
        afterSubcommand = true;
        continue;
      }
      ASSERT_EQ(arg.rfind("--", 0), 0u) << overlay << ": " << arg << " is not a flag";
      const std::string flag = arg.substr(0, arg.find('='));
      const std::regex listed("(^|[ ,])" + flag + "([ ,=]|$)", std::regex::multiline);
      EXPECT_TRUE(std::regex_search(afterSubcommand ? controller.out : global.out, listed))
          << overlay << ": " << flag << " is not a flag of `nodewright"
          << (afterSubcommand ? " controller`" : "`");
    }
    EXPECT_TRUE(afterSubcommand) << overlay << " does not run `controller`";
  }
}

// Least privilege: no wildcards, and neither overlay grants the other cloud's kinds (their CRDs
// are installed all the same).
TEST(DeployManifests, RolesNameTheirVerbsAndResourcesAndOnlyTheirCloud) {
  const std::map<std::string, std::set<std::string>> foreign = {
      {"overlays/aws", {"cluster.x-k8s.io", "infrastructure.cluster.x-k8s.io"}},
      {"overlays/azure", {"karpenter.sh", "karpenter.k8s.aws"}}};
  // Every CRD `nodewright crds` generated into deploy/crds, one file each.
  int generatedCrds = 0;
  for (const auto& entry : std::filesystem::directory_iterator(deploy::deployDir("crds"))) {
    const std::string file = entry.path().filename().string();
    generatedCrds += entry.path().extension() == ".yaml" && file != "kustomization.yaml" ? 1 : 0;
  }
  ASSERT_GE(generatedCrds, 16);
  for (const auto& [overlay, groups] : foreign) {
    const auto docs = render(overlay);
    int roles = 0;
    for (const api::Json& doc : docs) {
      const std::string kind = text(doc, "kind");
      if (kind == "CustomResourceDefinition") {
        continue;
      }
      if (kind != "ClusterRole" && kind != "Role") {
        continue;
      }
      ++roles;
      const std::string name = text(doc.at("metadata"), "name");
      for (const deploy::Rule& rule : deploy::rulesOf(doc)) {
        for (const auto* values : {&rule.apiGroups, &rule.resources, &rule.verbs}) {
          for (const std::string& value : *values) {
            EXPECT_EQ(value.find('*'), std::string::npos)
                << overlay << " " << kind << " " << name << " has a wildcard";
          }
        }
        for (const std::string& group : rule.apiGroups) {
          EXPECT_EQ(groups.count(group), 0u) << overlay << " " << name << " grants " << group;
        }
      }
    }
    EXPECT_GE(roles, 3) << overlay;
    int crds = 0;
    for (const api::Json& doc : docs) {
      crds += text(doc, "kind") == "CustomResourceDefinition" ? 1 : 0;
    }
    EXPECT_EQ(crds, generatedCrds) << overlay << " does not install every CRD";
  }
}

TEST(DeployManifests, OverlaysApplyToAnApiServerWithServerSideDryRun) {
  apiserver::testing::TestApiServer api;
  auto crd = apiserver::testing::kubectl(api, {"apply", "-f", "-"}, kServiceMonitorCrd);
  ASSERT_EQ(crd.code, 0) << crd.err;
  // Server-side dry run still needs the namespace its objects go to.
  auto ns = apiserver::testing::kubectl(api, {"create", "namespace", "nodewright"});
  ASSERT_EQ(ns.code, 0) << ns.err;
  for (const char* overlay : {"overlays/aws", "overlays/azure"}) {
    auto applied = apiserver::testing::kubectl(
        api, {"apply", "-k", deploy::deployDir(overlay), "--dry-run=server"});
    EXPECT_EQ(applied.code, 0) << overlay << ":\n" << applied.err << applied.out;
    EXPECT_NE(applied.out.find("deployment.apps/nodewright created (server dry run)"),
              std::string::npos)
        << applied.out;
  }
}

}  // namespace
}  // namespace nodewright::e2e
