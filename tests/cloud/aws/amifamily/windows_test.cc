// Windows user data, exactly: Karpenter's <powershell> script around EKS's
// Start-EKSBootstrap.ps1 (karpenter-provider-aws v1.14 bootstrap/windows.go and its
// launchtemplate testdata windows_userdata_merged.golden).
#include <gtest/gtest.h>

#include "cloud/aws/amifamily/bootstrap.h"
#include "cloud/aws/nodeclass/windows.h"

namespace nodewright::cloud::aws {
namespace {

BootstrapOptions windowsOptions(const char* family) {
  BootstrapOptions o;
  o.cluster = {"test-cluster", "https://test-cluster", "Y2EtYnVuZGxlCg==", "10.100.0.0/16"};
  o.family = family;
  o.labels = {{"karpenter.sh/capacity-type", "spot"}, {"testing/cluster", "unspecified"}};
  o.taints = {{"karpenter.sh/unregistered", "", "NoExecute", std::nullopt}};
  o.maxPods = 110;
  return o;
}

const std::string kBootstrapLine =
    "[string]$EKSBootstrapScriptFile = \"$env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1\"\n"
    "& $EKSBootstrapScriptFile -EKSClusterName 'test-cluster' -APIServerEndpoint "
    "'https://test-cluster' -Base64ClusterCA 'Y2EtYnVuZGxlCg==' -KubeletExtraArgs "
    "'--node-labels=\"karpenter.sh/capacity-type=spot,testing/cluster=unspecified\" "
    "--register-with-taints=\"karpenter.sh/unregistered:NoExecute\" --max-pods=110'";

TEST(BootstrapWindowsTest, EveryWindowsFamilyRunsStartEksBootstrap) {
  for (const char* family : {kFamilyWindows2019, kFamilyWindows2022, kFamilyWindows2025}) {
    SCOPED_TRACE(family);
    auto text = bootstrapUserData(windowsOptions(family));
    ASSERT_TRUE(text) << text.error().message();
    EXPECT_EQ(*text, "<powershell>\n" + kBootstrapLine + "\n</powershell>");
  }
}

TEST(BootstrapWindowsTest, UserScriptComesFirstAndClusterDnsIsPassed) {
  BootstrapOptions o = windowsOptions(kFamilyWindows2022);
  o.customUserData =
      "Write-Host \"Running custom user data script\"\n"
      "Write-Host \"Finished running custom user data script\"";
  api::karpenter::KubeletConfiguration kubelet;
  kubelet.clusterDNS = {"10.0.100.10"};
  o.kubelet = kubelet;
  auto text = bootstrapUserData(o);
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_EQ(*text,
            "<powershell>\n"
            "Write-Host \"Running custom user data script\"\n"
            "Write-Host \"Finished running custom user data script\"\n" +
                kBootstrapLine + " -DNSClusterIP '10.0.100.10'\n</powershell>");
}

}  // namespace
}  // namespace nodewright::cloud::aws
