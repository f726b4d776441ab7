#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "cloud/cloud_provider.h"

namespace nodewright::emulators::kubelet {

struct NodeAgentOptions {
  // From a machine's Node registering to the kubelet posting Ready=True.
  std::chrono::milliseconds readyDelay{2000};
  // From Karpenter registering a Node (the unregistered taint gone) to the simulated DaemonSet
  // (a CNI agent, say) removing the NodeClaim's startup taints.
  std::chrono::milliseconds startupTaintDelay{1000};
  // How often the cloud's machines are listed.
  std::chrono::milliseconds pollInterval{1000};
  // Which listed machines get a Node; empty: all of them.
  std::function<bool(const cloud::Machine&)> adopt;
  std::string kubeletVersion = "v1.31.0";
  // Also play kube-scheduler (bind pending pods). Off when a real scheduler runs.
  bool bindPods = true;
  // Workers of the pod controller (one status write per pod started).
  int podWorkers = 4;
};

}  // namespace nodewright::emulators::kubelet
