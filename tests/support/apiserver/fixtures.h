#pragma once

#include <string>

#include "api/reflect/json.h"

namespace nodewright::apiserver::testing {

// A NodeClaim as the provisioner writes it (about 1 KB of JSON), named "claim-<i>".
inline api::Json nodeClaim(size_t i) {
  using api::Json;
  return {
      {"apiVersion", "karpenter.sh/v1"},
      {"kind", "NodeClaim"},
      {"metadata",
       {{"name", "claim-" + std::to_string(i)},
        {"labels", {{"karpenter.sh/nodepool", "default"}, {"team", "t" + std::to_string(i % 7)}}},
        {"annotations", {{"karpenter.sh/nodepool-hash", "6821555240594823858"}}}}},
      {"spec",
       {{"nodeClassRef",
         {{"group", "karpenter.k8s.aws"}, {"kind", "EC2NodeClass"}, {"name", "default"}}},
        {"requirements", Json::array({{{"key", "node.kubernetes.io/instance-type"},
                                       {"operator", "In"},
                                       {"values", {"m5.large", "c6i.xlarge"}}},
                                      {{"key", "karpenter.sh/capacity-type"},
                                       {"operator", "In"},
                                       {"values", {"spot", "on-demand"}}}})},
        {"resources",
         {{"requests", {{"cpu", std::to_string(100 + i % 900) + "m"}, {"memory", "1Gi"}}}}},
        {"expireAfter", "720h"}}}};
}

inline api::Json configMap(const std::string& ns, const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"data", {{"counter", "0"}}}};
}

}  // namespace nodewright::apiserver::testing
