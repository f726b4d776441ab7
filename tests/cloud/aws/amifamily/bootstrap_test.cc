// Each AMI family's user data, exactly, and how the user's userData merges into it.
#include "cloud/aws/amifamily/bootstrap.h"

#include <gtest/gtest.h>
#include <toml.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "cloud/aws/amifamily/mime.h"
#include "cloud/aws/nodeclass/resolved.h"

namespace nodewright::cloud::aws {
namespace {

using amifamily::parseMimeArchive;

BootstrapOptions options(const char* family) {
  BootstrapOptions o;
  o.cluster = {"nodewright", "https://10.0.0.1:6443", "Q0EtQlVORExF", "10.100.0.0/16"};
  o.family = family;
  o.labels = {{"karpenter.sh/nodepool", "default"}, {"team", "a"}};
  o.taints = {{"dedicated", "gpu", "NoSchedule", std::nullopt},
              {"spot", "", "NoExecute", std::nullopt}};
  o.maxPods = 29;
  return o;
}

std::string userData(const BootstrapOptions& o) {
  auto text = bootstrapUserData(o);
  EXPECT_TRUE(text) << text.error().message();
  return text ? *text : "";
}

const std::string kNodeConfig =
    "# nodewright generated NodeConfig\n"
    "apiVersion: node.eks.aws/v1alpha1\n"
    "kind: NodeConfig\n"
    "spec:\n"
    "  cluster:\n"
    "    apiServerEndpoint: https://10.0.0.1:6443\n"
    "    certificateAuthority: Q0EtQlVORExF\n"
    "    cidr: 10.100.0.0/16\n"
    "    name: nodewright\n"
    "  kubelet:\n"
    "    config:\n"
    "      maxPods: 29\n"
    "      registerWithTaints:\n"
    "        - effect: NoSchedule\n"
    "          key: dedicated\n"
    "          value: gpu\n"
    "        - effect: NoExecute\n"
    "          key: spot\n"
    "    flags:\n"
    "      - --node-labels=\"karpenter.sh/nodepool=default,team=a\"\n";

TEST(BootstrapAl2023Test, WritesOneNodeConfigPart) {
  EXPECT_EQ(userData(options(kFamilyAL2023)),
            "MIME-Version: 1.0\n"
            "Content-Type: multipart/mixed; boundary=\"//\"\n"
            "\n"
            "--//\n"
            "Content-Type: application/node.eks.aws\n"
            "\n" +
                kNodeConfig + "\n--//--\n");
}

TEST(BootstrapAl2023Test, CarriesKubeletSettings) {
  BootstrapOptions o = options(kFamilyAL2023);
  o.labels.clear();
  o.taints.clear();
  api::karpenter::KubeletConfiguration k;
  k.maxPods = 110;
  k.clusterDNS = {"10.100.0.10"};
  k.evictionHard = {{"memory.available", "5%"}};
  k.evictionSoftGracePeriod = {{"memory.available", core::Duration(std::chrono::minutes(1))}};
  k.kubeReserved = {{"cpu", "100m"}};
  k.cpuCFSQuota = false;
  o.kubelet = k;
  auto parts = parseMimeArchive(userData(o));
  ASSERT_TRUE(parts) << parts.error().message();
  ASSERT_EQ(parts->size(), 1u);
  const std::string& config = (*parts)[0].content;
  EXPECT_NE(config.find("    config:\n"
                        "      clusterDNS:\n"
                        "        - 10.100.0.10\n"
                        "      cpuCFSQuota: false\n"
                        "      evictionHard:\n"
                        "        memory.available: 5%\n"
                        "      evictionSoftGracePeriod:\n"
                        "        memory.available: 1m0s\n"
                        "      kubeReserved:\n"
                        "        cpu: 100m\n"
                        "      maxPods: 110\n"),
            std::string::npos)
      << config;
  EXPECT_EQ(config.find("flags"), std::string::npos);
}

TEST(BootstrapAl2023Test, PutsTheUsersPartsFirstSoOursWin) {
  BootstrapOptions o = options(kFamilyAL2023);
  // A bare NodeConfig, a bare script, and a MIME archive of both.
  o.customUserData = "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec: {}\n";
  auto parts = parseMimeArchive(userData(o));
  ASSERT_TRUE(parts) << parts.error().message();
  ASSERT_EQ(parts->size(), 2u);
  EXPECT_EQ((*parts)[0].contentType(), "application/node.eks.aws");
  EXPECT_EQ((*parts)[0].content, *o.customUserData);
  EXPECT_EQ((*parts)[1].content, kNodeConfig);

  o.customUserData = "#!/bin/bash\necho 'a: b'\n";
  parts = parseMimeArchive(userData(o));
  ASSERT_TRUE(parts) << parts.error().message();
  EXPECT_EQ((*parts)[0].contentType(), "text/x-shellscript; charset=\"us-ascii\"");
  EXPECT_EQ((*parts)[0].content, *o.customUserData);

  o.customUserData =
      "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"BOUNDARY\"\n\n"
      "--BOUNDARY\nContent-Type: text/x-shellscript\n\necho one\n"
      "--BOUNDARY\nContent-Type: application/node.eks.aws\n\nkind: NodeConfig\n"
      "--BOUNDARY--\n";
  parts = parseMimeArchive(userData(o));
  ASSERT_TRUE(parts) << parts.error().message();
  ASSERT_EQ(parts->size(), 3u);
  EXPECT_EQ((*parts)[0].content, "echo one");
  EXPECT_EQ((*parts)[1].content, "kind: NodeConfig");
  EXPECT_EQ((*parts)[2].content, kNodeConfig);
}

TEST(BootstrapAl2Test, RunsBootstrapShAfterTheUsersScript) {
  BootstrapOptions o = options(kFamilyAL2);
  api::karpenter::KubeletConfiguration k;
  k.clusterDNS = {"10.100.0.10"};
  k.systemReserved = {{"cpu", "100m"}, {"memory", "100Mi"}};
  k.evictionHard = {{"memory.available", "5%"}};
  k.imageGCHighThresholdPercent = 85;
  o.kubelet = k;
  o.customUserData = "#!/bin/bash\necho hello\n";
  EXPECT_EQ(userData(o),
            "MIME-Version: 1.0\n"
            "Content-Type: multipart/mixed; boundary=\"//\"\n"
            "\n"
            "--//\n"
            "Content-Type: text/x-shellscript; charset=\"us-ascii\"\n"
            "\n"
            "#!/bin/bash\n"
            "echo hello\n"
            "\n"
            "--//\n"
            "Content-Type: text/x-shellscript; charset=\"us-ascii\"\n"
            "\n"
            "#!/bin/bash -xe\n"
            "exec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1\n"
            "/etc/eks/bootstrap.sh 'nodewright' --apiserver-endpoint 'https://10.0.0.1:6443' "
            "--b64-cluster-ca 'Q0EtQlVORExF' \\\n"
            "--dns-cluster-ip '10.100.0.10' \\\n"
            "--use-max-pods false \\\n"
            "--kubelet-extra-args '--node-labels=\"karpenter.sh/nodepool=default,team=a\" "
            "--register-with-taints=\"dedicated=gpu:NoSchedule,spot:NoExecute\" --max-pods=29 "
            "--system-reserved=\"cpu=100m,memory=100Mi\" --eviction-hard=\"memory.available<5%\" "
            "--image-gc-high-threshold=85'\n"
            "--//--\n");
}

TEST(BootstrapAl2Test, KeepsTheUsersMimePartsAndLetsBootstrapShSizePodsWithoutMaxPods) {
  BootstrapOptions o = options(kFamilyAL2);
  o.maxPods.reset();
  o.labels.clear();
  o.taints.clear();
  o.kubelet = api::karpenter::KubeletConfiguration{};
  o.kubelet->clusterDNS = {"fd00::a"};
  o.customUserData =
      "Content-Type: multipart/mixed; boundary=\"==X==\"\n\n--==X==\n"
      "Content-Type: text/cloud-config\n\nruncmd: []\n--==X==--\n";
  auto parts = parseMimeArchive(userData(o));
  ASSERT_TRUE(parts) << parts.error().message();
  ASSERT_EQ(parts->size(), 2u);
  EXPECT_EQ((*parts)[0].contentType(), "text/cloud-config");
  EXPECT_EQ((*parts)[1].content,
            "#!/bin/bash -xe\n"
            "exec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1\n"
            "/etc/eks/bootstrap.sh 'nodewright' --apiserver-endpoint 'https://10.0.0.1:6443' "
            "--b64-cluster-ca 'Q0EtQlVORExF' \\\n"
            "--ip-family ipv6 \\\n"
            "--dns-cluster-ip 'fd00::a'");
}

TEST(BootstrapBottlerocketTest, WritesKubernetesSettings) {
  EXPECT_EQ(userData(options(kFamilyBottlerocket)),
            "[settings]\n"
            "\n"
            "[settings.kubernetes]\n"
            "api-server = \"https://10.0.0.1:6443\"\n"
            "cluster-certificate = \"Q0EtQlVORExF\"\n"
            "cluster-name = \"nodewright\"\n"
            "max-pods = 29\n"
            "\n"
            "[settings.kubernetes.node-labels]\n"
            "\"karpenter.sh/nodepool\" = \"default\"\n"
            "team = \"a\"\n"
            "\n"
            "[settings.kubernetes.node-taints]\n"
            "dedicated = [\n"
            "\"gpu:NoSchedule\",\n"
            "]\n"
            "spot = [\n"
            "\":NoExecute\",\n"
            "]\n");
}

TEST(BootstrapBottlerocketTest, LaysOurSettingsOverTheUsers) {
  BootstrapOptions o = options(kFamilyBottlerocket);
  o.taints.clear();
  o.customUserData =
      "[settings.kubernetes]\n"
      "cluster-name = 'theirs'\n"
      "max-pods = 5\n"
      "[settings.kubernetes.node-labels]\n"
      "team = 'b'\n"
      "owner = 'c'\n"
      "[settings.kubernetes.node-taints]\n"
      "theirs = ['x:NoSchedule']\n"
      "[settings.host-containers.admin]\n"
      "enabled = true\n";
  const std::string text = userData(o);
  EXPECT_NE(text.find("[settings.host-containers.admin]\nenabled = true\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("cluster-name = \"nodewright\"\nmax-pods = 29\n"), std::string::npos) << text;
  EXPECT_NE(text.find("[settings.kubernetes.node-labels]\n\"karpenter.sh/nodepool\" = "
                      "\"default\"\nowner = 'c'\nteam = \"a\"\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("node-taints"), std::string::npos) << text;
}

// settings.bootstrap-commands."000-mount-instance-storage" of Bottlerocket user data, read back:
// each command's arguments joined by spaces, then essential and mode.
std::vector<std::string> mountCommand(const std::string& text) {
  std::istringstream in(text);
  const auto doc = toml::parse(in, "user-data");
  const auto& command =
      toml::find(doc, "settings", "bootstrap-commands", "000-mount-instance-storage");
  std::vector<std::string> out;
  for (const auto& args : toml::find<std::vector<std::vector<std::string>>>(command, "commands")) {
    std::string line;
    for (const std::string& arg : args) {
      line += (line.empty() ? "" : " ") + arg;
    }
    out.push_back(line);
  }
  out.push_back(toml::find<bool>(command, "essential") ? "essential" : "not essential");
  out.push_back(toml::find<std::string>(command, "mode"));
  return out;
}

// As Karpenter v1.14's Bottlerocket bootstrap: RAID0 initialises the instance stores as ephemeral
// storage and binds onto them, always, as an essential command; Bottlerocket before v1.46.0 is
// told the directories, later ones (and "latest") bind their defaults. The user's other
// commands stay.
TEST(BootstrapBottlerocketTest, Raid0MountsInstanceStorageAsEphemeralStorage) {
  BootstrapOptions o = options(kFamilyBottlerocket);
  EXPECT_EQ(userData(o).find("bootstrap-commands"), std::string::npos);
  o.raid0 = true;
  o.customUserData =
      "[settings.bootstrap-commands.theirs]\n"
      "commands = [['echo', 'hi']]\n"
      "mode = 'once'\n"
      "essential = false\n";
  o.bottlerocketVersion = "latest";
  std::string text = userData(o);
  EXPECT_EQ(mountCommand(text),
            (std::vector<std::string>{"apiclient ephemeral-storage init",
                                      "apiclient ephemeral-storage bind", "essential", "always"}))
      << text;
  EXPECT_NE(text.find("theirs"), std::string::npos) << text;
  o.bottlerocketVersion = "v1.45.2";
  text = userData(o);
  EXPECT_EQ(mountCommand(text),
            (std::vector<std::string>{
                "apiclient ephemeral-storage init",
                "apiclient ephemeral-storage bind --dirs /var/lib/containerd /var/lib/kubelet "
                "/var/log/pods",
                "essential", "always"}))
      << text;
}

TEST(BottlerocketVersionTest, FromTheAliasThenNamesThenResolvedImages) {
  using Term = api::karpenter::AMISelectorTerm;
  Term alias;
  alias.alias = "bottlerocket@v1.47.0";
  Term name;
  name.name = "bottlerocket-aws-k8s-1.33-x86_64-v1.44.0-431fe75a";
  Term id;
  id.id = "ami-2";
  const std::vector<std::pair<std::string, std::string>> images = {
      {"ami-1", "bottlerocket-aws-k8s-1.33-aarch64-v1.50.1-abc"},
      {"ami-2", "bottlerocket-aws-k8s-1.33-x86_64-v1.40.0-def"}};
  EXPECT_EQ(bottlerocketVersion({name, alias}, images), "v1.47.0");
  EXPECT_EQ(bottlerocketVersion({id, name}, images), "v1.44.0");
  EXPECT_EQ(bottlerocketVersion({id}, images), "v1.40.0");
  EXPECT_EQ(bottlerocketVersion({}, images), "v1.50.1");
  EXPECT_EQ(bottlerocketVersion({}, {}), "");
  EXPECT_TRUE(supportsDefaultBind("latest"));
  EXPECT_TRUE(supportsDefaultBind("v1.46.0"));
  EXPECT_TRUE(supportsDefaultBind("2.0.0"));
  EXPECT_FALSE(supportsDefaultBind("v1.45.9"));
  EXPECT_FALSE(supportsDefaultBind("v1.46"));
  EXPECT_FALSE(supportsDefaultBind(""));
}

struct BadUserData {
  std::string name;
  const char* family;
  std::string userData;
  std::string message;
};

class BadUserDataTest : public ::testing::TestWithParam<BadUserData> {};

TEST_P(BadUserDataTest, IsInvalidNamingSpecUserData) {
  BootstrapOptions o = options(GetParam().family);
  o.customUserData = GetParam().userData;
  auto text = bootstrapUserData(o);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().code(), core::Code::Invalid);
  EXPECT_EQ(text.error().message(), GetParam().message);
  EXPECT_EQ(text.error().message().find("s3cr3t"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Families, BadUserDataTest,
    ::testing::Values(
        BadUserData{"Al2023MalformedMime", kFamilyAL2023, "MIME-Version: 1.0\n\ns3cr3t",
                    "spec.userData: the MIME document has no Content-Type header"},
        BadUserData{"Al2023NodeConfigPartNotYaml", kFamilyAL2023,
                    "Content-Type: multipart/mixed; boundary=b\n\n--b\n"
                    "Content-Type: application/node.eks.aws\n\n- s3cr3t\n--b--\n",
                    "spec.userData: MIME part 1 (application/node.eks.aws) is not a YAML "
                    "NodeConfig"},
        BadUserData{"Al2UnterminatedMime", kFamilyAL2,
                    "Content-Type: multipart/mixed; boundary=b\n\n--b\n\ns3cr3t\n",
                    "spec.userData: the MIME document does not end with its closing boundary "
                    "--b--"},
        BadUserData{"BottlerocketBadToml", kFamilyBottlerocket,
                    "[settings.kubernetes]\ntoken = \"s3cr3t\n",
                    "spec.userData: invalid TOML on line 2"},
        BadUserData{"BottlerocketSettingsNotATable", kFamilyBottlerocket, "settings = \"s3cr3t\"\n",
                    "spec.userData: settings must be a table"},
        BadUserData{"BottlerocketLabelsNotATable", kFamilyBottlerocket,
                    "[settings.kubernetes]\nnode-labels = 's3cr3t'\n",
                    "spec.userData: settings.kubernetes.node-labels must be a table"}),
    [](const auto& info) { return info.param.name; });

TEST(BootstrapCustomTest, PassesTheUsersUserDataThrough) {
  BootstrapOptions o = options(kFamilyCustom);
  o.customUserData = "anything at all";
  EXPECT_EQ(userData(o), "anything at all");
  o.customUserData.reset();
  EXPECT_EQ(userData(o), "");
}

TEST(BootstrapCustomTest, AFamilyWithoutUserDataIsInvalid) {
  auto text = bootstrapUserData(options("Ubuntu"));
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().code(), core::Code::Invalid);
  EXPECT_EQ(text.error().message(), "spec.amiFamily: nodewright cannot write user data for Ubuntu");
}

}  // namespace
}  // namespace nodewright::cloud::aws
