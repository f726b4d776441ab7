#pragma once

#include <string>

#include "core/error.h"

namespace CLI {
class App;
}  // namespace CLI

// Karpenter's --feature-gates (FEATURE_GATES): comma-separated Name=bool pairs over upstream's
// defaults. Names upstream does not know are ignored, as upstream ignores them; a pair without
// '=' or with a value that is not a Go boolean is an error.
namespace nodewright::cmd {

// Upstream's defaults (kubernetes-sigs/karpenter v1.14, pkg/operator/options).
inline constexpr const char* kDefaultFeatureGates =
    "NodeRepair=false,ReservedCapacity=true,SpotToSpotConsolidation=false,NodeOverlay=false,"
    "StaticCapacity=false,CapacityBuffer=false";

struct FeatureGates {
  bool nodeRepair = false;
  bool reservedCapacity = true;
  bool spotToSpotConsolidation = false;
  bool nodeOverlay = false;
  bool staticCapacity = false;
  bool capacityBuffer = false;
};

// The gates `text` sets, the rest at upstream's defaults; Invalid naming --feature-gates.
core::Result<FeatureGates> parseFeatureGates(const std::string& text);

// Registers --feature-gates (or FEATURE_GATES) on `sub`; `text` must outlive the parse.
void addFeatureGatesFlag(CLI::App& sub, std::string& text);

}  // namespace nodewright::cmd
