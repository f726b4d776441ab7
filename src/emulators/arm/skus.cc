#include "emulators/arm/skus.h"
#include "core/text.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "emulators/arm/types.h"

namespace nodewright::emulators::arm {
namespace {

std::string str(const api::Json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

double num(const api::Json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_number() ? it->get<double>() : 0;
}

bool flag(const api::Json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_boolean() && it->get<bool>();
}

std::string number(double v) {
  return fmt::format("{:g}", v);
}

const char* boolText(bool b) {
  return b ? "True" : "False";
}

VmSize builtinSize(std::string name, std::string family, std::string arch, int vcpu,
                   double memoryGB, int nics, int disks, int gpus = 0) {
  VmSize s;
  s.name = std::move(name);
  s.tier = "Standard";
  s.size = s.name.substr(s.name.find('_') + 1);
  s.family = std::move(family);
  s.architecture = std::move(arch);
  s.vcpu = s.vcpuAvailable = vcpu;
  s.memoryGB = memoryGB;
  s.maxNetworkInterfaces = nics;
  s.maxDataDiskCount = disks;
  s.gpuCount = gpus;
  s.acceleratedNetworking = vcpu >= 2;
  s.premiumIO = s.lowPriorityCapable = s.encryptionAtHostSupported = true;
  s.ephemeralOSDiskSupported = true;
  s.hyperVGenerations = {"V1", "V2"};
  return s;
}

}  // namespace

SkuCatalog::SkuCatalog(std::vector<VmSize> sizes, std::vector<std::string> locations)
    : sizes_(std::move(sizes)), locations_(std::move(locations)) {
  for (const VmSize& s : sizes_) {
    lowerNames_.push_back(core::lowerAscii(s.name));
  }
  std::sort(lowerNames_.begin(), lowerNames_.end());
}

core::Result<SkuCatalog> SkuCatalog::load(const std::string& path,
                                          std::vector<std::string> locations) {
  std::ifstream in(path);
  if (!in) {
    return core::fail(core::Error::invalid(path + ": cannot be read"));
  }
  std::stringstream text;
  text << in.rdbuf();
  api::Json doc = api::Json::parse(text.str(), nullptr, false);
  if (doc.is_discarded() || !doc.is_array()) {
    return core::fail(core::Error::invalid(path + ": not a JSON array of VM sizes"));
  }
  std::vector<VmSize> sizes;
  for (size_t i = 0; i < doc.size(); ++i) {
    const api::Json& o = doc[i];
    VmSize s;
    s.name = o.is_object() ? str(o, "name") : std::string();
    if (s.name.empty()) {
      return core::fail(core::Error::invalid(fmt::format("{}: [{}].name: required", path, i)));
    }
    s.tier = str(o, "tier");
    s.size = str(o, "size");
    s.family = str(o, "family");
    s.architecture = str(o, "architecture");
    s.vcpu = static_cast<int>(num(o, "vcpu"));
    s.vcpuAvailable = static_cast<int>(num(o, "vcpuAvailable"));
    s.memoryGB = num(o, "memoryGB") > 0 ? num(o, "memoryGB") : num(o, "memoryMiB") / 1024;
    s.maxNetworkInterfaces = static_cast<int>(num(o, "maxNetworkInterfaces"));
    s.maxDataDiskCount = static_cast<int>(num(o, "maxDataDiskCount"));
    s.gpuCount = static_cast<int>(num(o, "gpuCount"));
    s.acceleratedNetworking = flag(o, "acceleratedNetworking");
    s.premiumIO = flag(o, "premiumIO");
    s.lowPriorityCapable = flag(o, "lowPriorityCapable");
    s.ephemeralOSDiskSupported = flag(o, "ephemeralOSDiskSupported");
    s.encryptionAtHostSupported = flag(o, "encryptionAtHostSupported");
    s.rdmaEnabled = flag(o, "rdmaEnabled");
    if (auto gens = o.find("hyperVGenerations"); gens != o.end() && gens->is_array()) {
      for (const api::Json& g : *gens) {
        if (g.is_string()) {
          s.hyperVGenerations.push_back(g.get<std::string>());
        }
      }
    }
    sizes.push_back(std::move(s));
  }
  return SkuCatalog(std::move(sizes), std::move(locations));
}

SkuCatalog SkuCatalog::builtin(std::vector<std::string> locations) {
  std::vector<VmSize> sizes = {
      builtinSize("Standard_B2s", "standardBSFamily", "amd64", 2, 4, 3, 4),
      builtinSize("Standard_D2s_v3", "standardDSv3Family", "amd64", 2, 8, 2, 4),
      builtinSize("Standard_D4s_v3", "standardDSv3Family", "amd64", 4, 16, 2, 8),
      builtinSize("Standard_D2s_v5", "standardDSv5Family", "amd64", 2, 8, 2, 4),
      builtinSize("Standard_D4s_v5", "standardDSv5Family", "amd64", 4, 16, 2, 8),
      builtinSize("Standard_D8s_v5", "standardDSv5Family", "amd64", 8, 32, 4, 16),
      builtinSize("Standard_E4s_v5", "standardESv5Family", "amd64", 4, 32, 2, 8),
      builtinSize("Standard_F4s_v2", "standardFSv2Family", "amd64", 4, 8, 2, 8),
      builtinSize("Standard_D2ps_v5", "standardDPSv5Family", "arm64", 2, 8, 2, 4),
      builtinSize("Standard_NC6s_v3", "standardNCSv3Family", "amd64", 6, 112, 4, 12, 1),
  };
  return SkuCatalog(std::move(sizes), std::move(locations));
}

bool SkuCatalog::has(std::string_view name) const {
  return std::binary_search(lowerNames_.begin(), lowerNames_.end(), core::lowerAscii(name));
}

api::Json SkuCatalog::entry(const VmSize& s, const std::string& location) const {
  api::Json caps = api::Json::array();
  auto cap = [&](const char* name, std::string value) {
    caps.push_back({{"name", name}, {"value", std::move(value)}});
  };
  cap("MaxResourceVolumeMB", "0");
  cap("vCPUs", std::to_string(s.vcpu));
  cap("vCPUsAvailable", std::to_string(s.vcpuAvailable > 0 ? s.vcpuAvailable : s.vcpu));
  cap("MemoryGB", number(s.memoryGB));
  cap("MaxDataDiskCount", std::to_string(s.maxDataDiskCount));
  cap("MaxNetworkInterfaces", std::to_string(s.maxNetworkInterfaces));
  std::string gens;
  for (const std::string& g : s.hyperVGenerations) {
    gens += (gens.empty() ? "" : ",") + g;
  }
  cap("HyperVGenerations", gens);
  cap("CpuArchitectureType", s.architecture == "arm64" ? "Arm64" : "x64");
  cap("GPUs", std::to_string(s.gpuCount));
  cap("PremiumIO", boolText(s.premiumIO));
  cap("LowPriorityCapable", boolText(s.lowPriorityCapable));
  cap("AcceleratedNetworkingEnabled", boolText(s.acceleratedNetworking));
  cap("EphemeralOSDiskSupported", boolText(s.ephemeralOSDiskSupported));
  cap("EncryptionAtHostSupported", boolText(s.encryptionAtHostSupported));
  cap("RdmaEnabled", boolText(s.rdmaEnabled));
  return {
      {"resourceType", "virtualMachines"},
      {"name", s.name},
      {"tier", s.tier},
      {"size", s.size},
      {"family", s.family},
      {"locations", {location}},
      {"locationInfo",
       {{{"location", location}, {"zones", {"1", "2", "3"}}, {"zoneDetails", api::Json::array()}}}},
      {"capabilities", std::move(caps)},
      {"restrictions", api::Json::array()}};
}

api::Json SkuCatalog::list(std::string_view location) const {
  api::Json value = api::Json::array();
  for (const std::string& loc : locations_) {
    if (!location.empty() && !core::equalsIgnoreCase(loc, location)) {
      continue;
    }
    for (const VmSize& s : sizes_) {
      value.push_back(entry(s, loc));
    }
  }
  return {{"value", std::move(value)}};
}

}  // namespace nodewright::emulators::arm
