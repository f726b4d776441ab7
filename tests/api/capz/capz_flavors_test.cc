// CAPZ's published cluster flavors, rendered the way clusterctl renders them, decode, default
// and validate through the builtin registry (the path the API server takes on create) without
// a single error. The fixtures under testdata/flavors are modelled on CAPZ's
// templates/cluster-template*.yaml, one per non-AKS, non-ClusterClass flavor.
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "api/capi/manifest_helpers.h"
#include "api/capz/azure_cluster.h"
#include "api/capz/azure_cluster_identity.h"
#include "api/kubeadm/control_plane.h"
#include "api/kubeadm/kubeadm_config.h"
#include "api/scale.h"

namespace nodewright::api::capz {
namespace {

namespace fs = std::filesystem;
using capi::testing::decode;
using capi::testing::decodeValid;
using capi::testing::document;
using capi::testing::documents;
using capi::testing::errorStrings;

const fs::path kFlavors = fs::path(NW_SOURCE_DIR) / "tests/api/capz/testdata/flavors";

struct Rendered {
  std::string text;
  std::vector<std::string> missing;  // variables with neither a value nor a default
};

// clusterctl's variable substitution (drone/envsubst): ${VAR}, ${VAR:=default} and
// ${VAR:-default}, where the default may itself hold ${...}. ":=" also assigns the default.
class Substitution {
 public:
  explicit Substitution(std::map<std::string, std::string> vars) : vars_(std::move(vars)) {}

  Rendered render(const std::string& in) {
    Rendered out;
    out.text = expand(in, out.missing);
    return out;
  }

 private:
  std::string expand(const std::string& in, std::vector<std::string>& missing) {
    std::string out;
    size_t i = 0;
    while (i < in.size()) {
      if (in.compare(i, 2, "${") != 0) {
        out += in[i++];
        continue;
      }
      size_t end = closing(in, i + 2);
      if (end == std::string::npos) {
        out += in.substr(i);
        break;
      }
      out += variable(in.substr(i + 2, end - i - 2), missing);
      i = end + 1;
    }
    return out;
  }

  // The index of the '}' closing the expression that starts at `from`, nesting included.
  static size_t closing(const std::string& in, size_t from) {
    int depth = 1;
    for (size_t j = from; j < in.size(); ++j) {
      if (in.compare(j, 2, "${") == 0) {
        ++depth;
        ++j;
      } else if (in[j] == '}' && --depth == 0) {
        return j;
      }
    }
    return std::string::npos;
  }

  std::string variable(const std::string& expr, std::vector<std::string>& missing) {
    size_t op = expr.find_first_of(":-=");
    std::string name = expr.substr(0, op);
    auto it = vars_.find(name);
    bool set = it != vars_.end() && !it->second.empty();
    if (op == std::string::npos) {
      if (!set) {
        missing.push_back(name);
        return "";
      }
      return it->second;
    }
    size_t valueAt = expr[op] == ':' ? op + 2 : op + 1;
    if (set) {
      return it->second;
    }
    std::string fallback = expand(expr.substr(valueAt), missing);
    if (expr.compare(op, 2, ":=") == 0 || expr[op] == '=') {
      vars_[name] = fallback;
    }
    return fallback;
  }

  std::map<std::string, std::string> vars_;
};

std::map<std::string, std::string> flavorVariables() {
  return {
      {"CLUSTER_NAME", "capz-flavor"},
      {"CLUSTER_IDENTITY_NAME", "cluster-identity"},
      {"AZURE_LOCATION", "westeurope"},
      {"AZURE_SUBSCRIPTION_ID", "6a1f0c9e-3d52-4b8a-9e47-2c81d5f0b3a4"},
      {"AZURE_TENANT_ID", "0d7e4b21-8c3f-4a96-b5e2-91f3c6a8d047"},
      {"AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY", "f2c8a5d1-64b7-4e09-a3f6-5d1b9e7c2a80"},
      {"AZURE_SERVER_APP_ID", "9b3e6f02-1a7d-4c58-8e24-c06f4d9a3b71"},
      {"KUBERNETES_VERSION", "v1.33.1"},
      {"AZURE_CONTROL_PLANE_MACHINE_TYPE", "Standard_D2s_v3"},
      {"AZURE_NODE_MACHINE_TYPE", "Standard_D4s_v3"},
      {"APISERVER_LB_DNS_SUFFIX", "k7q2x"},
      {"AZURE_EDGEZONE", "losangeles"},
      {"FLATCAR_VERSION", "4152.2.3"},
  };
}

std::string readFixture(const std::string& name) {
  std::ifstream in(kFlavors / (name + ".yaml"));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The 17 flavors of CAPZ HEAD other than the AKS and ClusterClass ones.
const std::vector<std::string> kFlavorNames = {
    "default",
    "aad",
    "apiserver-ilb",
    "azure-bastion",
    "azure-cni-v1",
    "dual-stack",
    "edgezone",
    "ephemeral",
    "flatcar",
    "flatcar-sysext",
    "ipv6",
    "machinepool",
    "machinepool-windows",
    "nvidia-gpu",
    "private",
    "windows",
    "windows-apiserver-ilb",
};

class CapzFlavorTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CapzFlavorTest, AppliesUnchangedAfterSubstitution) {
  std::string raw = readFixture(GetParam());
  ASSERT_FALSE(raw.empty()) << "missing fixture " << GetParam();
  Rendered rendered = Substitution(flavorVariables()).render(raw);
  ASSERT_EQ(rendered.missing, std::vector<std::string>{});

  std::vector<Json> docs = documents(rendered.text);
  ASSERT_GE(docs.size(), 7u);
  std::map<std::string, int> kinds;
  for (const Json& doc : docs) {
    DecodedObject decoded = decode(doc);
    std::string what = doc.value("kind", "") + "/" + doc["metadata"].value("name", "");
    EXPECT_EQ(errorStrings(decoded.errors), std::vector<std::string>{}) << what;
    EXPECT_TRUE(decoded.object.has_value()) << what << " is not a served kind";
    ++kinds[doc.value("kind", "")];
  }
  // Every flavor carries the kubeadm providers' kinds and the identity.
  EXPECT_EQ(kinds["KubeadmControlPlane"], 1);
  EXPECT_EQ(kinds["AzureClusterIdentity"], 1);
  EXPECT_EQ(kinds["AzureCluster"], 1);
  EXPECT_GE(kinds["KubeadmConfigTemplate"] + kinds["KubeadmConfig"], 1);
}

INSTANTIATE_TEST_SUITE_P(Flavors, CapzFlavorTest, ::testing::ValuesIn(kFlavorNames),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (c == '-') {
                               c = '_';
                             }
                           }
                           return name;
                         });

// The document of `kind` in the rendered flavor.
Json flavorDocument(const std::string& flavor, const std::string& kind,
                    const std::string& nameSuffix = "") {
  Rendered rendered = Substitution(flavorVariables()).render(readFixture(flavor));
  for (const Json& doc : documents(rendered.text)) {
    std::string name = doc["metadata"].value("name", "");
    if (doc.value("kind", "") == kind && (nameSuffix.empty() || name.ends_with(nameSuffix))) {
      return doc;
    }
  }
  ADD_FAILURE() << "no " << kind << " in " << flavor;
  return Json();
}

TEST(SubstitutionTest, ExpandsValuesDefaultsAndNestedDefaults) {
  Substitution sub({{"CLUSTER_NAME", "c1"}, {"EMPTY", ""}});
  Rendered r = sub.render(
      "${CLUSTER_NAME} ${VNET:=${CLUSTER_NAME}-vnet} ${VNET} ${EMPTY:-x} "
      "${IP:-10.0.0.4} ${KEY:=\"\"} ${UNSET}");
  EXPECT_EQ(r.text, "c1 c1-vnet c1-vnet x 10.0.0.4 \"\" ");
  EXPECT_EQ(r.missing, std::vector<std::string>{"UNSET"});
}

TEST(KubeadmControlPlaneFlavorTest, DefaultsAsTheWebhookDoes) {
  auto kcp =
      decodeValid<kubeadm::KubeadmControlPlane>(flavorDocument("default", "KubeadmControlPlane"));
  EXPECT_EQ(kcp.spec.replicas, 1);
  EXPECT_EQ(kcp.spec.version, "v1.33.1");
  ASSERT_TRUE(kcp.spec.rolloutStrategy.has_value());
  EXPECT_EQ(kcp.spec.rolloutStrategy->type, "RollingUpdate");
  EXPECT_EQ(kcp.spec.rolloutStrategy->rollingUpdate->maxSurge, IntOrString::ofInt(1));
  const auto& config = kcp.spec.kubeadmConfigSpec;
  EXPECT_EQ(config.clusterConfiguration->etcd.local->dataDir, "/var/lib/etcddisk/etcd");
  EXPECT_EQ(config.mounts,
            (std::vector<std::vector<std::string>>{{"LABEL=etcd_disk", "/var/lib/etcddisk"}}));
  EXPECT_EQ(config.diskSetup->filesystems[1].replaceFS, "ntfs");
  EXPECT_EQ(config.files[0].contentFrom->secret.name, "capz-flavor-control-plane-azure-json");
}

TEST(KubeadmControlPlaneFlavorTest, ServesTheScaleSubresource) {
  auto scale = scaleSubresource("controlplane.cluster.x-k8s.io", "KubeadmControlPlane");
  ASSERT_TRUE(scale.has_value());
  EXPECT_EQ(scale->specReplicasPath, ".spec.replicas");
  EXPECT_EQ(scale->statusReplicasPath, ".status.replicas");
  EXPECT_EQ(scale->labelSelectorPath, ".status.selector");
}

TEST(AzureClusterFlavorTest, ApiServerLoadBalancerKeepsPublicAndPrivateFrontends) {
  auto cluster = decodeValid<AzureCluster>(flavorDocument("apiserver-ilb", "AzureCluster"));
  const LoadBalancerSpec& lb = *cluster.spec.networkSpec.apiServerLB;
  ASSERT_EQ(lb.frontendIPs.size(), 2u);
  EXPECT_EQ(lb.frontendIPs[0].publicIP->dnsName, "capz-flavor-k7q2x.westeurope.cloudapp.azure.com");
  EXPECT_EQ(lb.frontendIPs[1].privateIP, "30.0.0.100");
}

TEST(AzureClusterFlavorTest, PrivateClusterKeepsZonesAndDefaultsTheInternalFrontend) {
  auto cluster = decodeValid<AzureCluster>(flavorDocument("private", "AzureCluster"));
  const LoadBalancerSpec& lb = *cluster.spec.networkSpec.apiServerLB;
  EXPECT_EQ(lb.availabilityZones, (std::vector<std::string>{"1", "2", "3"}));
  ASSERT_EQ(lb.frontendIPs.size(), 1u);
  EXPECT_EQ(lb.frontendIPs[0].privateIP, "10.0.0.100");
}

TEST(KubeadmConfigFlavorTest, FlatcarTemplatesUseIgnition) {
  auto tmpl = decodeValid<kubeadm::KubeadmConfigTemplate>(
      flavorDocument("flatcar", "KubeadmConfigTemplate"));
  const kubeadm::KubeadmConfigSpec& spec = tmpl.spec.template_.spec;
  EXPECT_EQ(spec.format, "ignition");
  EXPECT_NE(spec.ignition->containerLinuxConfig->additionalConfig.find("kubeadm.service"),
            std::string::npos);
}

TEST(KubeadmConfigFlavorTest, WindowsPoolConfigKeepsUsersAndInlineFiles) {
  auto config = decodeValid<kubeadm::KubeadmConfig>(
      flavorDocument("machinepool-windows", "KubeadmConfig", "-mp-win"));
  EXPECT_EQ(config.spec.joinConfiguration->nodeRegistration.criSocket,
            "npipe:////./pipe/containerd-containerd");
  ASSERT_EQ(config.spec.users.size(), 1u);
  EXPECT_EQ(config.spec.users[0].groups, "Administrators");
  // ${AZURE_SSH_PUBLIC_KEY:=""} renders as YAML's empty string.
  EXPECT_EQ(config.spec.users[0].sshAuthorizedKeys, std::vector<std::string>{""});
  EXPECT_FALSE(config.spec.files[1].content.empty());
}

constexpr const char* kJoiningConfig = R"(
apiVersion: bootstrap.cluster.x-k8s.io/v1beta1
kind: KubeadmConfig
metadata:
  name: worker-0
  namespace: default
spec:
  joinConfiguration:
    nodeRegistration:
      name: worker-0
    discovery:
      bootstrapToken:
        token: abcdef.0123456789abcdef
        apiServerEndpoint: 10.0.0.4:6443
        unsafeSkipCAVerification: true
)";

struct BadKubeadmCase {
  std::string name;
  std::function<void(Json&)> edit;
  std::vector<std::string> errors;
};

class BadKubeadmConfigTest : public ::testing::TestWithParam<BadKubeadmCase> {};

TEST_P(BadKubeadmConfigTest, IsRejectedWithUpstreamPathAndMessage) {
  Json doc = document(kJoiningConfig);
  GetParam().edit(doc);
  EXPECT_EQ(errorStrings(decode(doc).errors), GetParam().errors);
}

INSTANTIATE_TEST_SUITE_P(
    Rules, BadKubeadmConfigTest,
    ::testing::Values(
        BadKubeadmCase{
            "DiscoveryKubeconfigWithTwoAuthMethods",
            [](Json& j) {
              j["spec"]["joinConfiguration"]["discovery"].erase("bootstrapToken");
              j["spec"]["joinConfiguration"]["discovery"]["file"] =
                  Json{{"kubeConfigPath", "/etc/kubernetes/discovery.conf"},
                       {"kubeConfig",
                        {{"user",
                          {{"authProvider", {{"name", "azure"}}},
                           {"exec",
                            {{"command", "kubelogin"},
                             {"apiVersion", "client.authentication.k8s.io/v1"}}}}}}}};
            },
            {"spec.joinConfiguration.discovery.file.kubeconfig.user: Invalid value: "
             "{\"authProvider\":{\"name\":\"azure\"},\"exec\":{\"command\":\"kubelogin\","
             "\"apiVersion\":\"client.authentication.k8s.io/v1\"}}: only one of "
             "authProvider or exec must be defined"}},
        BadKubeadmCase{
            "FileWithContentAndContentFromAndRepeatedPath",
            [](Json& j) {
              j["spec"]["files"] =
                  Json::array({Json{{"path", "/etc/a"},
                                    {"content", "x"},
                                    {"contentFrom", {{"secret", {{"name", "s"}, {"key", "k"}}}}}},
                               Json{{"path", "/etc/a"}, {"content", "y"}}});
            },
            {"spec.files[0]: Invalid value: {\"path\":\"/etc/a\",\"content\":\"x\","
             "\"contentFrom\":{\"secret\":{\"name\":\"s\",\"key\":\"k\"}}}: only one "
             "of content or contentFrom may be specified for a single file",
             "spec.files[1].path: Invalid value: {\"path\":\"/etc/a\",\"content\":\"y\"}: "
             "path property must be unique among all files"}},
        BadKubeadmCase{"IgnitionSettingsWithoutIgnitionFormat",
                       [](Json& j) {
                         j["spec"]["ignition"] =
                             Json{{"containerLinuxConfig", {{"additionalConfig", "systemd: {}"}}}};
                       },
                       {"spec.format: Invalid value: \"\": must be set to \"ignition\" if "
                        "spec.ignition is set"}},
        BadKubeadmCase{"UnknownFieldInJoinConfiguration",
                       [](Json& j) { j["spec"]["joinConfiguration"]["timeouts"] = Json::object(); },
                       {"spec.joinConfiguration.timeouts: field not declared in schema"}}),
    [](const auto& info) { return info.param.name; });

// CAPI's webhook does not forbid both discovery methods (kubeadm itself refuses that at join
// time, on the node); the API accepts it, as upstream's does.
TEST(KubeadmConfigTest, AcceptsBothDiscoveryMethodsAsUpstreamDoes) {
  Json doc = document(kJoiningConfig);
  doc["spec"]["joinConfiguration"]["discovery"]["file"] =
      Json{{"kubeConfigPath", "/etc/kubernetes/discovery.conf"}};
  EXPECT_EQ(errorStrings(decode(doc).errors), std::vector<std::string>{});
}

TEST(KubeadmControlPlaneTest, RejectsEvenReplicasWithStackedEtcd) {
  Json doc = flavorDocument("default", "KubeadmControlPlane");
  doc["spec"]["replicas"] = 2;
  EXPECT_EQ(errorStrings(decode(doc).errors),
            std::vector<std::string>{
                "spec.replicas: Forbidden: cannot be an even number when etcd is stacked"});
}

TEST(AzureClusterIdentityTest, RejectsFieldsOfOtherIdentityTypes) {
  Json doc = flavorDocument("default", "AzureClusterIdentity");
  doc["spec"]["resourceID"] = "/subscriptions/x/identity";
  doc["spec"]["userAssignedIdentityCredentialsPath"] = "/var/run/creds.json";
  EXPECT_EQ(errorStrings(decode(doc).errors),
            (std::vector<std::string>{
                "spec.resourceID: Forbidden: /subscriptions/x/identity",
                "spec.userAssignedIdentityCredentialsPath: Forbidden: /var/run/creds.json can "
                "only be set when AzureClusterIdentity is of type UserAssignedIdentityCredential",
                "spec.userAssignedIdentityCredentialsCloudType: Forbidden:  can only be set when "
                "AzureClusterIdentity is of type UserAssignedIdentityCredential "}));
}

}  // namespace
}  // namespace nodewright::api::capz
