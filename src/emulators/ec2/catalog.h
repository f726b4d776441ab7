#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"

namespace nodewright::emulators::ec2 {

// CPU architectures under the names EC2 uses (DescribeInstanceTypes ProcessorInfo,
// DescribeImages Architecture).
enum class Architecture { I386, X86_64, Arm64, X86_64Mac, Arm64Mac };

// "x86_64", "arm64", ... as EC2 spells them.
std::string_view architectureName(Architecture arch);
// Accepts EC2's names and the Kubernetes names of the reference data ("amd64" is x86_64).
std::optional<Architecture> parseArchitecture(std::string_view name);

struct NetworkCard {
  int index = 0;
  int maximumNetworkInterfaces = 0;
};

// GPUs of one instance type; memoryMiB is per GPU.
struct GpuInfo {
  int count = 0;
  std::string manufacturer;  // "nvidia", "amd"; empty when unknown
  std::string name;          // lower-case kebab, e.g. "a10g"; empty when unknown
  std::optional<int64_t> memoryMiB;
};

// Inference and training accelerators: Inferentia and Trainium (AWS Neuron devices), and
// others EC2 lists as inference accelerators (Qualcomm AI 100).
struct AcceleratorInfo {
  int count = 0;
  std::string manufacturer;      // "aws", "qualcomm"
  std::string name;              // "trainium", "inferentia2", "qualcomm-ai100"
  int neuronCoresPerDevice = 0;  // NeuronCores of each Neuron device; 0 when unknown or not Neuron
};

// Facts about one instance type, as DescribeInstanceTypes reports them. A nullopt or empty
// field is one no source knew; it is never guessed.
struct InstanceTypeInfo {
  std::string name;    // "m5.large"
  std::string family;  // "m5"
  std::optional<Architecture> architecture;
  std::optional<int> vcpu;
  std::optional<int64_t> memoryMiB;
  std::optional<std::string> hypervisor;  // "nitro", "xen", or "" on bare metal
  bool bareMetal = false;
  // Cards in index order; maxNetworkInterfaces is the total across them.
  std::vector<NetworkCard> networkCards;
  int defaultNetworkCardIndex = 0;
  int maxNetworkInterfaces = 0;
  std::optional<int> ipv4PerInterface;
  std::optional<int> ipv6PerInterface;
  bool efaSupported = false;
  int maximumEfaInterfaces = 0;
  GpuInfo gpus;
  AcceleratorInfo accelerators;
  // Baseline bandwidth across all cards (Karpenter's instance-network-bandwidth label).
  std::optional<int64_t> networkBandwidthMbps;
  std::optional<bool> encryptionInTransit;
  std::string cpuManufacturer;  // "intel", "amd", "aws"; empty when unknown
  std::optional<int> sustainedClockSpeedMhz;
  // EbsOptimizedInfo.MaximumBandwidthInMbps: Karpenter's instance-ebs-bandwidth label is this
  // maximum, not the baseline.
  std::optional<int64_t> ebsMaximumBandwidthMbps;
  // NVMe instance storage in GB; 0 when the type is known to have no instance storage.
  std::optional<int64_t> localNvmeGB;
  // The number of equal NVMe disks making up localNvmeGB; nullopt when unknown.
  std::optional<int> localNvmeDisks;
  std::optional<double> onDemandPrice;  // us-east-1 USD per hour, Linux, shared tenancy
  // E.g. {"on-demand", "spot"}; empty when the data did not say.
  std::vector<std::string> supportedUsageClasses;

  // The card with this index, or nullptr.
  const NetworkCard* card(int index) const;
};

// An immutable set of instance types, looked up by name. Thread-safe once built.
class Catalog {
 public:
  Catalog() = default;
  // REQUIRES: names are unique (loadCatalog checks this; the built-in table is unique).
  explicit Catalog(std::vector<InstanceTypeInfo> types);

  // nullptr for an unknown name.
  const InstanceTypeInfo* find(std::string_view name) const;
  // Sorted by name. A temporary catalog hands its types over instead of a dangling reference.
  const std::vector<InstanceTypeInfo>& all() const& { return types_; }
  std::vector<InstanceTypeInfo> all() && { return std::move(types_); }
  size_t size() const { return types_.size(); }

 private:
  std::vector<InstanceTypeInfo> types_;  // sorted by name, for binary search
};

// The catalog compiled into the binary: the common families (m5, m6i, m7i, c5, c6i, c7i, r5,
// r6i, m6g, m7g, c7g, t3, g5, p4d, p5, trn1, inf2) in their usual sizes, and one family of
// each other accelerator Karpenter knows: g4ad (AMD GPUs), dl1 (Habana Gaudi).
Catalog builtinCatalog();

// Reads a catalog in the format of ../shared/data/aws-instance-types.json (a JSON array of
// objects; see its README). Errors name the file and the line, or the record and field.
core::Result<Catalog> loadCatalog(const std::string& path);
// As loadCatalog, from text; `source` names it in errors.
core::Result<Catalog> parseCatalog(std::string_view json, std::string_view source);

}  // namespace nodewright::emulators::ec2
