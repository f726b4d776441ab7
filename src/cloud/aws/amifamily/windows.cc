// Windows: one PowerShell script that EC2Launch runs; the user's script first, then the EKS
// image's Start-EKSBootstrap.ps1 with the cluster and kubelet settings (karpenter-provider-aws
// v1.14 pkg/providers/amifamily/bootstrap/windows.go).
#include <fmt/format.h>

#include "cloud/aws/amifamily/families.h"

namespace nodewright::cloud::aws::amifamily {

core::Result<std::string> windowsUserData(const BootstrapOptions& options) {
  std::string s = "<powershell>\n";
  if (options.customUserData && !options.customUserData->empty()) {
    s += *options.customUserData + "\n";
  }
  s += "[string]$EKSBootstrapScriptFile = "
       "\"$env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1\"\n";
  s += fmt::format("& $EKSBootstrapScriptFile -EKSClusterName '{}' -APIServerEndpoint '{}'",
                   options.cluster.name, options.cluster.endpoint);
  if (!options.cluster.caBundle.empty()) {
    s += fmt::format(" -Base64ClusterCA '{}'", options.cluster.caBundle);
  }
  // The same kubelet flags as AL2's bootstrap.sh takes.
  if (auto args = eksKubeletArgs(options); !args.empty()) {
    s += fmt::format(" -KubeletExtraArgs '{}'", fmt::join(args, " "));
  }
  if (options.kubelet && !options.kubelet->clusterDNS.empty()) {
    s += fmt::format(" -DNSClusterIP '{}'", options.kubelet->clusterDNS.front());
  }
  s += "\n</powershell>";
  return s;
}

}  // namespace nodewright::cloud::aws::amifamily
