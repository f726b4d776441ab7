// Every EC2NodeClass spec.kubelet setting that Karpenter v1.14 passes through to user data, per
// AMI family, exactly as it writes them (aws/karpenter-provider-aws v1.14.1
// pkg/providers/amifamily/bootstrap/{bootstrap,eksbootstrap,nodeadm,bottlerocket}.go):
//   AL2           bootstrap.sh --kubelet-extra-args flags;
//   AL2023        NodeConfig spec.kubelet.config, the KubeletConfiguration's JSON names;
//   Bottlerocket  settings.kubernetes.*, without podsPerCore (Bottlerocket has no such setting)
//                 and with the image GC thresholds as strings.
#include <gtest/gtest.h>

#include "cloud/aws/amifamily/bootstrap.h"
#include "cloud/aws/amifamily/mime.h"
#include "cloud/aws/nodeclass/resolved.h"

namespace nodewright::cloud::aws {
namespace {

// Every field of the KubeletConfiguration, none at its default.
api::karpenter::KubeletConfiguration everySetting() {
  api::karpenter::KubeletConfiguration k;
  k.clusterDNS = {"10.100.0.10", "10.100.0.11"};
  k.maxPods = 110;
  k.podsPerCore = 4;
  k.systemReserved = {{"cpu", "100m"}, {"memory", "100Mi"}};
  k.kubeReserved = {{"ephemeral-storage", "1Gi"}};
  k.evictionHard = {{"memory.available", "5%"}};
  k.evictionSoft = {{"memory.available", "10%"}, {"nodefs.available", "15%"}};
  k.evictionSoftGracePeriod = {{"memory.available", core::Duration(std::chrono::seconds(90))},
                               {"nodefs.available", core::Duration(std::chrono::hours(1))}};
  k.evictionMaxPodGracePeriod = 60;
  k.imageGCHighThresholdPercent = 85;
  k.imageGCLowThresholdPercent = 80;
  k.cpuCFSQuota = false;
  return k;
}

BootstrapOptions options(const char* family) {
  BootstrapOptions o;
  o.cluster = {"nodewright", "https://10.0.0.1:6443", "Q0EtQlVORExF", "10.100.0.0/16"};
  o.family = family;
  o.labels = {{"karpenter.sh/nodepool", "default"}};
  o.taints = {{"karpenter.sh/unregistered", "", "NoExecute", std::nullopt}};
  o.maxPods = 29;  // the type's ENI-limited pods: kubelet.maxPods wins over it
  o.kubelet = everySetting();
  return o;
}

std::string userData(const BootstrapOptions& o) {
  auto text = bootstrapUserData(o);
  EXPECT_TRUE(text) << text.error().message();
  return text ? *text : "";
}

// The one part our user data is made of, without the MIME wrapping.
std::string onlyPart(const std::string& archive) {
  auto parts = amifamily::parseMimeArchive(archive);
  EXPECT_TRUE(parts) << parts.error().message();
  if (!parts || parts->size() != 1) {
    ADD_FAILURE() << archive;
    return "";
  }
  return (*parts)[0].content;
}

TEST(KubeletSettingsTest, Al2PassesEveryOneAsBootstrapFlags) {
  EXPECT_EQ(onlyPart(userData(options(kFamilyAL2))),
            "#!/bin/bash -xe\n"
            "exec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1\n"
            "/etc/eks/bootstrap.sh 'nodewright' --apiserver-endpoint 'https://10.0.0.1:6443' "
            "--b64-cluster-ca 'Q0EtQlVORExF' \\\n"
            "--dns-cluster-ip '10.100.0.10' \\\n"
            "--use-max-pods false \\\n"
            "--kubelet-extra-args '--node-labels=\"karpenter.sh/nodepool=default\" "
            "--register-with-taints=\"karpenter.sh/unregistered:NoExecute\" --max-pods=110 "
            "--pods-per-core=4 --system-reserved=\"cpu=100m,memory=100Mi\" "
            "--kube-reserved=\"ephemeral-storage=1Gi\" --eviction-hard=\"memory.available<5%\" "
            "--eviction-soft=\"memory.available<10%,nodefs.available<15%\" "
            "--eviction-soft-grace-period=\"memory.available=1m30s,nodefs.available=1h0m0s\" "
            "--eviction-max-pod-grace-period=60 --image-gc-high-threshold=85 "
            "--image-gc-low-threshold=80 --cpu-cfs-quota=false'");
}

TEST(KubeletSettingsTest, Al2023PassesEveryOneInTheNodeConfig) {
  EXPECT_EQ(onlyPart(userData(options(kFamilyAL2023))),
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
            "      clusterDNS:\n"
            "        - 10.100.0.10\n"
            "        - 10.100.0.11\n"
            "      cpuCFSQuota: false\n"
            "      evictionHard:\n"
            "        memory.available: 5%\n"
            "      evictionMaxPodGracePeriod: 60\n"
            "      evictionSoft:\n"
            "        memory.available: 10%\n"
            "        nodefs.available: 15%\n"
            "      evictionSoftGracePeriod:\n"
            "        memory.available: 1m30s\n"
            "        nodefs.available: 1h0m0s\n"
            "      imageGCHighThresholdPercent: 85\n"
            "      imageGCLowThresholdPercent: 80\n"
            "      kubeReserved:\n"
            "        ephemeral-storage: 1Gi\n"
            "      maxPods: 110\n"
            "      podsPerCore: 4\n"
            "      registerWithTaints:\n"
            "        - effect: NoExecute\n"
            "          key: karpenter.sh/unregistered\n"
            "      systemReserved:\n"
            "        cpu: 100m\n"
            "        memory: 100Mi\n"
            "    flags:\n"
            "      - --node-labels=\"karpenter.sh/nodepool=default\"\n");
}

TEST(KubeletSettingsTest, BottlerocketPassesEveryOneItHasASettingFor) {
  EXPECT_EQ(userData(options(kFamilyBottlerocket)),
            "[settings]\n"
            "\n"
            "[settings.kubernetes]\n"
            "api-server = \"https://10.0.0.1:6443\"\n"
            "cluster-certificate = \"Q0EtQlVORExF\"\n"
            "cluster-dns-ip = \"10.100.0.10\"\n"
            "cluster-name = \"nodewright\"\n"
            "cpu-cfs-quota-enforced = false\n"
            "eviction-max-pod-grace-period = 60\n"
            "image-gc-high-threshold-percent = \"85\"\n"
            "image-gc-low-threshold-percent = \"80\"\n"
            "max-pods = 110\n"
            "\n"
            "[settings.kubernetes.eviction-hard]\n"
            "\"memory.available\" = \"5%\"\n"
            "\n"
            "[settings.kubernetes.eviction-soft]\n"
            "\"memory.available\" = \"10%\"\n"
            "\"nodefs.available\" = \"15%\"\n"
            "\n"
            "[settings.kubernetes.eviction-soft-grace-period]\n"
            "\"memory.available\" = \"1m30s\"\n"
            "\"nodefs.available\" = \"1h0m0s\"\n"
            "\n"
            "[settings.kubernetes.kube-reserved]\n"
            "ephemeral-storage = \"1Gi\"\n"
            "\n"
            "[settings.kubernetes.node-labels]\n"
            "\"karpenter.sh/nodepool\" = \"default\"\n"
            "\n"
            "[settings.kubernetes.node-taints]\n"
            "\"karpenter.sh/unregistered\" = [\n"
            "\":NoExecute\",\n"
            "]\n"
            "\n"
            "[settings.kubernetes.system-reserved]\n"
            "cpu = \"100m\"\n"
            "memory = \"100Mi\"\n");
}

// The user's own values for the settings Karpenter writes lose to the node class's.
TEST(KubeletSettingsTest, BottlerocketKubeletSettingsWinOverTheUsers) {
  BootstrapOptions o = options(kFamilyBottlerocket);
  o.customUserData =
      "[settings.kubernetes]\n"
      "eviction-max-pod-grace-period = 5\n"
      "image-gc-high-threshold-percent = 'x'\n"
      "[settings.kubernetes.eviction-soft]\n"
      "'memory.available' = '1%'\n";
  const std::string text = userData(o);
  EXPECT_NE(text.find("eviction-max-pod-grace-period = 60\n"), std::string::npos) << text;
  EXPECT_NE(text.find("image-gc-high-threshold-percent = \"85\"\n"), std::string::npos) << text;
  EXPECT_NE(text.find("[settings.kubernetes.eviction-soft]\n\"memory.available\" = \"10%\"\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("1%"), std::string::npos) << text;
}

// spec.instanceStorePolicy: RAID0 as Karpenter v1.14 writes it for AL2 and AL2023.
TEST(InstanceStorePolicyTest, Raid0ReachesBootstrapShAndTheNodeConfig) {
  BootstrapOptions o = options(kFamilyAL2);
  o.kubelet.reset();
  o.labels.clear();
  o.taints.clear();
  o.maxPods.reset();
  o.raid0 = true;
  EXPECT_EQ(onlyPart(userData(o)),
            "#!/bin/bash -xe\n"
            "exec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1\n"
            "/etc/eks/bootstrap.sh 'nodewright' --apiserver-endpoint 'https://10.0.0.1:6443' "
            "--b64-cluster-ca 'Q0EtQlVORExF' \\\n"
            "--local-disks raid0");

  o.family = kFamilyAL2023;
  EXPECT_EQ(onlyPart(userData(o)),
            "# nodewright generated NodeConfig\n"
            "apiVersion: node.eks.aws/v1alpha1\n"
            "kind: NodeConfig\n"
            "spec:\n"
            "  cluster:\n"
            "    apiServerEndpoint: https://10.0.0.1:6443\n"
            "    certificateAuthority: Q0EtQlVORExF\n"
            "    cidr: 10.100.0.0/16\n"
            "    name: nodewright\n"
            "  instance:\n"
            "    localStorage:\n"
            "      strategy: RAID0\n"
            "  kubelet: {}\n");
}

}  // namespace
}  // namespace nodewright::cloud::aws
