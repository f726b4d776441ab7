#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/reflect/json.h"
#include "core/error.h"

// Microsoft.Compute/skus: the VM sizes a subscription may use, from the VM-size facts
// (../shared/data/azure-vm-sizes.json, one object per size) or a built-in handful. VM and
// scale-set PUTs check their size against it. Immutable after loading; thread-safe.
namespace nodewright::emulators::arm {

struct VmSize {
  std::string name;  // "Standard_D2s_v5"
  std::string tier;
  std::string size;
  std::string family;
  std::string architecture;  // "amd64", "arm64", or empty when unknown
  int vcpu = 0;
  int vcpuAvailable = 0;
  double memoryGB = 0;
  int maxNetworkInterfaces = 0;
  int maxDataDiskCount = 0;
  int gpuCount = 0;
  bool acceleratedNetworking = false;
  bool premiumIO = false;
  bool lowPriorityCapable = false;
  bool ephemeralOSDiskSupported = false;
  bool encryptionAtHostSupported = false;
  bool rdmaEnabled = false;
  std::vector<std::string> hyperVGenerations;
};

class SkuCatalog {
 public:
  // `locations`: where every size is offered (the facts name none).
  SkuCatalog(std::vector<VmSize> sizes, std::vector<std::string> locations);

  static core::Result<SkuCatalog> load(const std::string& path, std::vector<std::string> locations);
  static SkuCatalog builtin(std::vector<std::string> locations);

  size_t size() const { return sizes_.size(); }
  // Case-insensitive, as ARM compares size names.
  bool has(std::string_view name) const;
  // The list response {"value": [...]}, one entry per (size, location); `location` empty: all.
  api::Json list(std::string_view location) const;

 private:
  api::Json entry(const VmSize& size, const std::string& location) const;

  std::vector<VmSize> sizes_;
  std::vector<std::string> locations_;
  std::vector<std::string> lowerNames_;  // sorted
};

}  // namespace nodewright::emulators::arm
