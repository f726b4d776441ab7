// The built-in instance catalog: facts for the common families, copied once from
// ../shared/data/aws-instance-types.json (see its README for the sources of each field);
// CatalogTest.BuiltinAgreesWithTheDataFile checks every fact against the file.
// c7i.32xlarge is left out: the data has no vCPU, memory or architecture for it.
#include "emulators/ec2/catalog.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace nodewright::emulators::ec2 {
namespace {

enum Arch { kX86, kArm };
enum Hypervisor { kNitro, kXen, kMetal };
enum UsageClass { kOd = 1, kSpot = 2, kCb = 4 };  // 0: the data did not say

// Every card of these types allows the same number of interfaces, so a row gives the card
// count and the per-card limit. -1 marks a value the data did not have.
struct Row {
  const char* name;
  Arch arch;
  int vcpu;
  int64_t memoryMiB;
  Hypervisor hypervisor;
  int cards;
  int interfacesPerCard;
  int ipv4PerInterface;
  int ipv6PerInterface;
  int maxEfa;  // 0: no EFA support
  int64_t bandwidthMbps;
  double price;
  int usageClasses;
};

enum Cpu { kIntel, kAmd, kAws };

// Processor, EBS and encryption-in-transit facts, one row per type of kRows.
struct PlatformRow {
  const char* name;
  Cpu cpu;
  int clockMhz;  // sustained; -1: the data did not say
  int64_t ebsMaximumMbps;
  bool encryptionInTransit;
};

// The types with NVMe instance storage; every other type of kRows has none. The data file
// holds the total size only; the split into disks is EC2's DescribeInstanceTypes
// InstanceStorageInfo.Disks (as copied in moto's ec2/resources/instance_types.json).
struct StorageRow {
  const char* name;
  int disks;
  int64_t diskGB;
};

struct AcceleratorRow {
  const char* name;
  bool gpu;   // false: Inferentia/Trainium
  int count;  // GPUs, or Neuron devices
  const char* manufacturer;
  const char* model;
  int64_t memoryMiB;
  int neuronCoresPerDevice;  // 0 for GPUs
};

// clang-format off
constexpr Row kRows[] = {
    {"m5.large", kX86, 2, 8192, kNitro, 1, 3, 10, -1, 0, 750, 0.096, kOd|kSpot},
    {"m5.xlarge", kX86, 4, 16384, kNitro, 1, 4, 15, -1, 0, 1250, 0.192, kOd|kSpot},
    {"m5.2xlarge", kX86, 8, 32768, kNitro, 1, 4, 15, -1, 0, 2500, 0.384, 0},
    {"m5.4xlarge", kX86, 16, 65536, kNitro, 1, 8, 30, -1, 0, 5000, 0.768, 0},
    {"m5.8xlarge", kX86, 32, 131072, kNitro, 1, 8, 30, -1, 0, 10000, 1.536, 0},
    {"m5.12xlarge", kX86, 48, 196608, kNitro, 1, 8, 30, -1, 0, 12000, 2.304, 0},
    {"m5.16xlarge", kX86, 64, 262144, kNitro, 1, 15, 50, -1, 0, 20000, 3.072, 0},
    {"m5.24xlarge", kX86, 96, 393216, kNitro, 1, 15, 50, -1, 0, 25000, 4.608, 0},
    {"m5.metal", kX86, 96, 393216, kMetal, 1, 15, 50, -1, 0, 25000, 4.608, kOd|kSpot},
    {"m6i.large", kX86, 2, 8192, kNitro, 1, 3, 10, -1, 0, 781, 0.096, 0},
    {"m6i.xlarge", kX86, 4, 16384, kNitro, 1, 4, 15, -1, 0, 1562, 0.192, 0},
    {"m6i.2xlarge", kX86, 8, 32768, kNitro, 1, 4, 15, -1, 0, 3125, 0.384, 0},
    {"m6i.4xlarge", kX86, 16, 65536, kNitro, 1, 8, 30, -1, 0, 6250, 0.768, 0},
    {"m6i.8xlarge", kX86, 32, 131072, kNitro, 1, 8, 30, -1, 0, 12500, 1.536, 0},
    {"m6i.12xlarge", kX86, 48, 196608, kNitro, 1, 8, 30, -1, 0, 18750, 2.304, 0},
    {"m6i.16xlarge", kX86, 64, 262144, kNitro, 1, 15, 50, -1, 0, 25000, 3.072, 0},
    {"m6i.24xlarge", kX86, 96, 393216, kNitro, 1, 15, 50, -1, 0, 37500, 4.608, 0},
    {"m6i.32xlarge", kX86, 128, 524288, kNitro, 1, 15, 50, -1, 1, 50000, 6.144, 0},
    {"m6i.metal", kX86, 128, 524288, kMetal, 1, 15, 50, -1, 1, 50000, 6.144, 0},
    {"m7i.large", kX86, 2, 8192, kNitro, 1, 3, 10, -1, 0, 781, 0.1008, 0},
    {"m7i.xlarge", kX86, 4, 16384, kNitro, 1, 4, 15, -1, 0, 1562, 0.2016, 0},
    {"m7i.2xlarge", kX86, 8, 32768, kNitro, 1, 4, 15, -1, 0, 3125, 0.4032, 0},
    {"m7i.4xlarge", kX86, 16, 65536, kNitro, 1, 8, 30, -1, 0, 6250, 0.8064, 0},
    {"m7i.8xlarge", kX86, 32, 131072, kNitro, 1, 8, 30, -1, 0, 12500, 1.6128, 0},
    {"m7i.12xlarge", kX86, 48, 196608, kNitro, 1, 8, 30, -1, 0, 18750, 2.4192, 0},
    {"m7i.16xlarge", kX86, 64, 262144, kNitro, 1, 15, 50, -1, 0, 25000, 3.2256, 0},
    {"m7i.24xlarge", kX86, 96, 393216, kNitro, 1, 15, 50, -1, 0, 37500, 4.8384, 0},
    {"m7i.48xlarge", kX86, 192, 786432, kNitro, 1, 15, 50, -1, 1, 50000, 9.6768, 0},
    {"m7i.metal-24xl", kX86, 96, 393216, kMetal, 1, 15, 50, -1, 0, 37500, 5.32224, 0},
    {"m7i.metal-48xl", kX86, 192, 786432, kMetal, 1, 15, 50, -1, 1, 50000, 9.6768, 0},
    {"c5.large", kX86, 2, 4096, kNitro, 1, 3, 10, 10, 0, 750, 0.085, kOd|kSpot},
    {"c5.xlarge", kX86, 4, 8192, kNitro, 1, 4, 15, -1, 0, 1250, 0.17, 0},
    {"c5.2xlarge", kX86, 8, 16384, kNitro, 1, 4, 15, 15, 0, 2500, 0.34, kOd|kSpot},
    {"c5.4xlarge", kX86, 16, 32768, kNitro, 1, 8, 30, 30, 0, 5000, 0.68, kOd|kSpot},
    {"c5.9xlarge", kX86, 36, 73728, kNitro, 1, 8, 30, 30, 0, 12000, 1.53, kOd|kSpot},
    {"c5.12xlarge", kX86, 48, 98304, kNitro, 1, 8, 30, 30, 0, 12000, 2.04, kOd|kSpot},
    {"c5.18xlarge", kX86, 72, 147456, kNitro, 1, 15, 50, 50, 0, 25000, 3.06, kOd|kSpot},
    {"c5.24xlarge", kX86, 96, 196608, kNitro, 1, 15, 50, 50, 0, 25000, 4.08, kOd|kSpot},
    {"c5.metal", kX86, 96, 196608, kMetal, 1, 15, 50, -1, 0, 25000, 4.08, 0},
    {"c6i.large", kX86, 2, 4096, kNitro, 1, 3, 10, -1, 0, 781, 0.085, 0},
    {"c6i.xlarge", kX86, 4, 8192, kNitro, 1, 4, 15, -1, 0, 1562, 0.17, 0},
    {"c6i.2xlarge", kX86, 8, 16384, kNitro, 1, 4, 15, -1, 0, 3125, 0.34, 0},
    {"c6i.4xlarge", kX86, 16, 32768, kNitro, 1, 8, 30, -1, 0, 6250, 0.68, 0},
    {"c6i.8xlarge", kX86, 32, 65536, kNitro, 1, 8, 30, -1, 0, 12500, 1.36, 0},
    {"c6i.12xlarge", kX86, 48, 98304, kNitro, 1, 8, 30, -1, 0, 18750, 2.04, 0},
    {"c6i.16xlarge", kX86, 64, 131072, kNitro, 1, 15, 50, -1, 0, 25000, 2.72, 0},
    {"c6i.24xlarge", kX86, 96, 196608, kNitro, 1, 15, 50, -1, 0, 37500, 4.08, 0},
    {"c6i.32xlarge", kX86, 128, 262144, kNitro, 1, 15, 50, -1, 1, 50000, 5.44, 0},
    {"c6i.metal", kX86, 128, 262144, kMetal, 1, 15, 50, -1, 1, 50000, 5.44, 0},
    {"c7i.large", kX86, 2, 4096, kNitro, 1, 3, 10, -1, 0, 781, 0.08925, 0},
    {"c7i.xlarge", kX86, 4, 8192, kNitro, 1, 4, 15, -1, 0, 1562, 0.1785, 0},
    {"c7i.2xlarge", kX86, 8, 16384, kNitro, 1, 4, 15, -1, 0, 3125, 0.357, 0},
    {"c7i.4xlarge", kX86, 16, 32768, kNitro, 1, 8, 30, -1, 0, 6250, 0.714, 0},
    {"c7i.8xlarge", kX86, 32, 65536, kNitro, 1, 8, 30, -1, 0, 12500, 1.428, 0},
    {"c7i.12xlarge", kX86, 48, 98304, kNitro, 1, 8, 30, -1, 0, 18750, 2.142, 0},
    {"c7i.16xlarge", kX86, 64, 131072, kNitro, 1, 15, 50, -1, 0, 25000, 2.856, 0},
    {"c7i.24xlarge", kX86, 96, 196608, kNitro, 1, 15, 50, -1, 0, 37500, 4.284, 0},
    {"c7i.48xlarge", kX86, 192, 393216, kNitro, 1, 15, 50, -1, 1, 50000, 8.568, 0},
    {"c7i.metal-24xl", kX86, 96, 196608, kMetal, 1, 15, 50, -1, 0, 37500, 4.7124, 0},
    {"c7i.metal-48xl", kX86, 192, 393216, kMetal, 1, 15, 50, -1, 1, 50000, 8.568, 0},
    {"r5.large", kX86, 2, 16384, kNitro, 1, 3, 10, -1, 0, 750, 0.126, 0},
    {"r5.xlarge", kX86, 4, 32768, kNitro, 1, 4, 15, -1, 0, 1250, 0.252, 0},
    {"r5.2xlarge", kX86, 8, 65536, kNitro, 1, 4, 15, -1, 0, 2500, 0.504, 0},
    {"r5.4xlarge", kX86, 16, 131072, kNitro, 1, 8, 30, -1, 0, 5000, 1.008, 0},
    {"r5.8xlarge", kX86, 32, 262144, kNitro, 1, 8, 30, -1, 0, 10000, 2.016, 0},
    {"r5.12xlarge", kX86, 48, 393216, kNitro, 1, 8, 30, -1, 0, 12000, 3.024, 0},
    {"r5.16xlarge", kX86, 64, 524288, kNitro, 1, 15, 50, -1, 0, 20000, 4.032, 0},
    {"r5.24xlarge", kX86, 96, 786432, kNitro, 1, 15, 50, -1, 0, 25000, 6.048, 0},
    {"r5.metal", kX86, 96, 786432, kMetal, 1, 15, 50, -1, 0, 25000, 6.048, 0},
    {"r6i.large", kX86, 2, 16384, kNitro, 1, 3, 10, -1, 0, 781, 0.126, 0},
    {"r6i.xlarge", kX86, 4, 32768, kNitro, 1, 4, 15, -1, 0, 1562, 0.252, 0},
    {"r6i.2xlarge", kX86, 8, 65536, kNitro, 1, 4, 15, -1, 0, 3125, 0.504, 0},
    {"r6i.4xlarge", kX86, 16, 131072, kNitro, 1, 8, 30, -1, 0, 6250, 1.008, 0},
    {"r6i.8xlarge", kX86, 32, 262144, kNitro, 1, 8, 30, -1, 0, 12500, 2.016, 0},
    {"r6i.12xlarge", kX86, 48, 393216, kNitro, 1, 8, 30, -1, 0, 18750, 3.024, 0},
    {"r6i.16xlarge", kX86, 64, 524288, kNitro, 1, 15, 50, -1, 0, 25000, 4.032, 0},
    {"r6i.24xlarge", kX86, 96, 786432, kNitro, 1, 15, 50, -1, 0, 37500, 6.048, 0},
    {"r6i.32xlarge", kX86, 128, 1048576, kNitro, 1, 15, 50, -1, 1, 50000, 8.064, 0},
    {"r6i.metal", kX86, 128, 1048576, kMetal, 1, 15, 50, -1, 1, 50000, 8.064, 0},
    {"m6g.medium", kArm, 1, 4096, kNitro, 1, 2, 4, -1, 0, 500, 0.0385, 0},
    {"m6g.large", kArm, 2, 8192, kNitro, 1, 3, 10, -1, 0, 750, 0.077, 0},
    {"m6g.xlarge", kArm, 4, 16384, kNitro, 1, 4, 15, -1, 0, 1250, 0.154, 0},
    {"m6g.2xlarge", kArm, 8, 32768, kNitro, 1, 4, 15, -1, 0, 2500, 0.308, 0},
    {"m6g.4xlarge", kArm, 16, 65536, kNitro, 1, 8, 30, -1, 0, 5000, 0.616, 0},
    {"m6g.8xlarge", kArm, 32, 131072, kNitro, 1, 8, 30, -1, 0, 12000, 1.232, 0},
    {"m6g.12xlarge", kArm, 48, 196608, kNitro, 1, 8, 30, -1, 0, 20000, 1.848, 0},
    {"m6g.16xlarge", kArm, 64, 262144, kNitro, 1, 15, 50, -1, 0, 25000, 2.464, 0},
    {"m6g.metal", kArm, 64, 262144, kMetal, 1, 15, 50, -1, 0, 25000, 2.6112, 0},
    {"m7g.medium", kArm, 1, 4096, kNitro, 1, 2, 4, -1, 0, 520, 0.0408, 0},
    {"m7g.large", kArm, 2, 8192, kNitro, 1, 3, 10, -1, 0, 937, 0.0816, 0},
    {"m7g.xlarge", kArm, 4, 16384, kNitro, 1, 4, 15, -1, 0, 1876, 0.1632, 0},
    {"m7g.2xlarge", kArm, 8, 32768, kNitro, 1, 4, 15, -1, 0, 3750, 0.3264, 0},
    {"m7g.4xlarge", kArm, 16, 65536, kNitro, 1, 8, 30, -1, 0, 7500, 0.6528, 0},
    {"m7g.8xlarge", kArm, 32, 131072, kNitro, 1, 8, 30, -1, 0, 15000, 1.3056, 0},
    {"m7g.12xlarge", kArm, 48, 196608, kNitro, 1, 8, 30, -1, 0, 22500, 1.9584, 0},
    {"m7g.16xlarge", kArm, 64, 262144, kNitro, 1, 15, 50, -1, 1, 30000, 2.6112, 0},
    {"m7g.metal", kArm, 64, 262144, kMetal, 1, 15, 50, -1, 1, 30000, 2.6112, 0},
    {"c7g.medium", kArm, 1, 2048, kNitro, 1, 2, 4, -1, 0, 520, 0.0363, 0},
    {"c7g.large", kArm, 2, 4096, kNitro, 1, 3, 10, -1, 0, 937, 0.0725, 0},
    {"c7g.xlarge", kArm, 4, 8192, kNitro, 1, 4, 15, -1, 0, 1876, 0.145, 0},
    {"c7g.2xlarge", kArm, 8, 16384, kNitro, 1, 4, 15, -1, 0, 3750, 0.29, 0},
    {"c7g.4xlarge", kArm, 16, 32768, kNitro, 1, 8, 30, -1, 0, 7500, 0.58, 0},
    {"c7g.8xlarge", kArm, 32, 65536, kNitro, 1, 8, 30, -1, 0, 15000, 1.16, 0},
    {"c7g.12xlarge", kArm, 48, 98304, kNitro, 1, 8, 30, -1, 0, 22500, 1.74, 0},
    {"c7g.16xlarge", kArm, 64, 131072, kNitro, 1, 15, 50, -1, 1, 30000, 2.32, 0},
    {"c7g.metal", kArm, 64, 131072, kMetal, 1, 15, 50, -1, 1, 30000, 2.32, 0},
    {"t3.nano", kX86, 2, 512, kNitro, 1, 2, 2, -1, 0, 32, 0.0052, 0},
    {"t3.micro", kX86, 2, 1024, kNitro, 1, 2, 2, 2, 0, 64, 0.0104, kOd|kSpot},
    {"t3.small", kX86, 2, 2048, kNitro, 1, 3, 4, -1, 0, 128, 0.0208, 0},
    {"t3.medium", kX86, 2, 4096, kNitro, 1, 3, 6, -1, 0, 256, 0.0416, 0},
    {"t3.large", kX86, 2, 8192, kNitro, 1, 3, 12, -1, 0, 512, 0.0832, kOd|kSpot},
    {"t3.xlarge", kX86, 4, 16384, kNitro, 1, 4, 15, -1, 0, 1024, 0.1664, 0},
    {"t3.2xlarge", kX86, 8, 32768, kNitro, 1, 4, 15, -1, 0, 2048, 0.3328, 0},
    {"g5.xlarge", kX86, 4, 16384, kNitro, 1, 4, 15, -1, 0, 2500, 1.006, 0},
    {"g5.2xlarge", kX86, 8, 32768, kNitro, 1, 4, 15, -1, 0, 5000, 1.212, 0},
    {"g5.4xlarge", kX86, 16, 65536, kNitro, 1, 8, 30, -1, 0, 10000, 1.624, 0},
    {"g5.8xlarge", kX86, 32, 131072, kNitro, 1, 8, 30, -1, 1, 25000, 2.448, 0},
    {"g5.12xlarge", kX86, 48, 196608, kNitro, 1, 15, 50, -1, 1, 40000, 5.672, kOd|kSpot},
    {"g5.16xlarge", kX86, 64, 262144, kNitro, 1, 8, 30, -1, 1, 25000, 4.096, 0},
    {"g5.24xlarge", kX86, 96, 393216, kNitro, 1, 15, 50, -1, 1, 50000, 8.144, 0},
    {"g5.48xlarge", kX86, 192, 786432, kNitro, 1, 7, 50, -1, 1, 100000, 16.288, 0},
    {"p4d.24xlarge", kX86, 96, 1179648, kNitro, 4, 15, 50, -1, 4, 400000, 21.957642, 0},
    {"p5.4xlarge", kX86, 16, 262144, kNitro, 1, 4, 30, -1, 1, 100000, 6.88, 0},
    {"p5.48xlarge", kX86, 192, 2097152, kNitro, 32, 2, 50, -1, 32, 3200000, 55.04, kCb|kOd|kSpot},
    {"trn1.2xlarge", kX86, 8, 32768, kNitro, 1, 4, 15, -1, 0, 3125, 1.34375, kOd|kSpot},
    {"trn1.32xlarge", kX86, 128, 524288, kNitro, 8, 5, 50, -1, 8, 800000, 21.5, 0},
    {"inf2.xlarge", kX86, 4, 16384, kNitro, 1, 4, 15, -1, 0, 2083, 0.7582, kOd|kSpot},
    {"inf2.8xlarge", kX86, 32, 131072, kNitro, 1, 8, 30, -1, 0, 16667, 1.96786, 0},
    {"inf2.24xlarge", kX86, 96, 393216, kNitro, 1, 15, 50, -1, 0, 50000, 6.49063, kOd|kSpot},
    {"inf2.48xlarge", kX86, 192, 786432, kNitro, 1, 15, 50, -1, 0, 100000, 12.98127, 0},
    {"g4ad.xlarge", kX86, 4, 16384, kNitro, 1, 2, 4, -1, 0, 2000, 0.37853, 0},
    {"g4ad.2xlarge", kX86, 8, 32768, kNitro, 1, 2, 4, -1, 0, 4167, 0.54117, 0},
    {"g4ad.4xlarge", kX86, 16, 65536, kNitro, 1, 3, 10, -1, 0, 8333, 0.867, 0},
    {"g4ad.8xlarge", kX86, 32, 131072, kNitro, 1, 4, 15, -1, 0, 15000, 1.734, 0},
    {"g4ad.16xlarge", kX86, 64, 262144, kNitro, 1, 8, 30, -1, 0, 25000, 3.468, kOd|kSpot},
    {"dl1.24xlarge", kX86, 96, 786432, kNitro, 4, 15, 50, -1, 4, 400000, 13.10904, 0},
};

constexpr PlatformRow kPlatform[] = {
    {"m5.large", kIntel, 3100, 4750, false},
    {"m5.xlarge", kIntel, 3100, 4750, false},
    {"m5.2xlarge", kIntel, 3100, 4750, false},
    {"m5.4xlarge", kIntel, 3100, 4750, false},
    {"m5.8xlarge", kIntel, 3100, 6800, false},
    {"m5.12xlarge", kIntel, 3100, 9500, false},
    {"m5.16xlarge", kIntel, 3100, 13600, false},
    {"m5.24xlarge", kIntel, 3100, 19000, false},
    {"m5.metal", kIntel, 3100, 19000, false},
    {"m6i.large", kIntel, 3500, 10000, true},
    {"m6i.xlarge", kIntel, 3500, 10000, true},
    {"m6i.2xlarge", kIntel, 3500, 10000, true},
    {"m6i.4xlarge", kIntel, 3500, 10000, true},
    {"m6i.8xlarge", kIntel, 3500, 10000, true},
    {"m6i.12xlarge", kIntel, 3500, 15000, true},
    {"m6i.16xlarge", kIntel, 3500, 20000, true},
    {"m6i.24xlarge", kIntel, 3500, 30000, true},
    {"m6i.32xlarge", kIntel, 3500, 40000, true},
    {"m6i.metal", kIntel, 3500, 40000, true},
    {"m7i.large", kIntel, 3200, 10000, true},
    {"m7i.xlarge", kIntel, 3200, 10000, true},
    {"m7i.2xlarge", kIntel, 3200, 10000, true},
    {"m7i.4xlarge", kIntel, 3200, 10000, true},
    {"m7i.8xlarge", kIntel, 3200, 10000, true},
    {"m7i.12xlarge", kIntel, 3200, 15000, true},
    {"m7i.16xlarge", kIntel, 3200, 20000, true},
    {"m7i.24xlarge", kIntel, 3200, 30000, true},
    {"m7i.48xlarge", kIntel, 3200, 40000, true},
    {"m7i.metal-24xl", kIntel, 3200, 30000, true},
    {"m7i.metal-48xl", kIntel, 3200, 40000, true},
    {"c5.large", kIntel, 3400, 4750, false},
    {"c5.xlarge", kIntel, 3400, 4750, false},
    {"c5.2xlarge", kIntel, 3400, 4750, false},
    {"c5.4xlarge", kIntel, 3400, 4750, false},
    {"c5.9xlarge", kIntel, 3400, 9500, false},
    {"c5.12xlarge", kIntel, 3600, 9500, false},
    {"c5.18xlarge", kIntel, 3400, 19000, false},
    {"c5.24xlarge", kIntel, 3600, 19000, false},
    {"c5.metal", kIntel, 3600, 19000, false},
    {"c6i.large", kIntel, 3500, 10000, true},
    {"c6i.xlarge", kIntel, 3500, 10000, true},
    {"c6i.2xlarge", kIntel, 3500, 10000, true},
    {"c6i.4xlarge", kIntel, 3500, 10000, true},
    {"c6i.8xlarge", kIntel, 3500, 10000, true},
    {"c6i.12xlarge", kIntel, 3500, 15000, true},
    {"c6i.16xlarge", kIntel, 3500, 20000, true},
    {"c6i.24xlarge", kIntel, 3500, 30000, true},
    {"c6i.32xlarge", kIntel, 3500, 40000, true},
    {"c6i.metal", kIntel, 3500, 40000, true},
    {"c7i.large", kIntel, 3200, 10000, true},
    {"c7i.xlarge", kIntel, 3200, 10000, true},
    {"c7i.2xlarge", kIntel, 3200, 10000, true},
    {"c7i.4xlarge", kIntel, 3200, 10000, true},
    {"c7i.8xlarge", kIntel, 3200, 10000, true},
    {"c7i.12xlarge", kIntel, 3200, 15000, true},
    {"c7i.16xlarge", kIntel, 3200, 20000, true},
    {"c7i.24xlarge", kIntel, 3200, 30000, true},
    {"c7i.48xlarge", kIntel, 3200, 40000, true},
    {"c7i.metal-24xl", kIntel, 3200, 30000, true},
    {"c7i.metal-48xl", kIntel, 3200, 40000, true},
    {"r5.large", kIntel, 3100, 4750, false},
    {"r5.xlarge", kIntel, 3100, 4750, false},
    {"r5.2xlarge", kIntel, 3100, 4750, false},
    {"r5.4xlarge", kIntel, 3100, 4750, false},
    {"r5.8xlarge", kIntel, 3100, 6800, false},
    {"r5.12xlarge", kIntel, 3100, 9500, false},
    {"r5.16xlarge", kIntel, 3100, 13600, false},
    {"r5.24xlarge", kIntel, 3100, 19000, false},
    {"r5.metal", kIntel, 3100, 19000, false},
    {"r6i.large", kIntel, 3500, 10000, true},
    {"r6i.xlarge", kIntel, 3500, 10000, true},
    {"r6i.2xlarge", kIntel, 3500, 10000, true},
    {"r6i.4xlarge", kIntel, 3500, 10000, true},
    {"r6i.8xlarge", kIntel, 3500, 10000, true},
    {"r6i.12xlarge", kIntel, 3500, 15000, true},
    {"r6i.16xlarge", kIntel, 3500, 20000, true},
    {"r6i.24xlarge", kIntel, 3500, 30000, true},
    {"r6i.32xlarge", kIntel, 3500, 40000, true},
    {"r6i.metal", kIntel, 3500, 40000, true},
    {"m6g.medium", kAws, 2500, 4750, false},
    {"m6g.large", kAws, 2500, 4750, false},
    {"m6g.xlarge", kAws, 2500, 4750, false},
    {"m6g.2xlarge", kAws, 2500, 4750, false},
    {"m6g.4xlarge", kAws, 2500, 4750, false},
    {"m6g.8xlarge", kAws, 2500, 9500, false},
    {"m6g.12xlarge", kAws, 2500, 14250, false},
    {"m6g.16xlarge", kAws, 2500, 19000, false},
    {"m6g.metal", kAws, 2500, 19000, false},
    {"m7g.medium", kAws, 2600, 10000, true},
    {"m7g.large", kAws, 2600, 10000, true},
    {"m7g.xlarge", kAws, 2600, 10000, true},
    {"m7g.2xlarge", kAws, 2600, 10000, true},
    {"m7g.4xlarge", kAws, 2600, 10000, true},
    {"m7g.8xlarge", kAws, 2600, 10000, true},
    {"m7g.12xlarge", kAws, 2600, 15000, true},
    {"m7g.16xlarge", kAws, 2600, 20000, true},
    {"m7g.metal", kAws, 2600, 20000, true},
    {"c7g.medium", kAws, 2600, 10000, true},
    {"c7g.large", kAws, 2600, 10000, true},
    {"c7g.xlarge", kAws, 2600, 10000, true},
    {"c7g.2xlarge", kAws, 2600, 10000, true},
    {"c7g.4xlarge", kAws, 2600, 10000, true},
    {"c7g.8xlarge", kAws, 2600, 10000, true},
    {"c7g.12xlarge", kAws, 2600, 15000, true},
    {"c7g.16xlarge", kAws, 2600, 20000, true},
    {"c7g.metal", kAws, 2600, 20000, true},
    {"t3.nano", kIntel, 2500, 2085, false},
    {"t3.micro", kIntel, 2500, 2085, false},
    {"t3.small", kIntel, 2500, 2085, false},
    {"t3.medium", kIntel, 2500, 2085, false},
    {"t3.large", kIntel, 2500, 2780, false},
    {"t3.xlarge", kIntel, 2500, 2780, false},
    {"t3.2xlarge", kIntel, 2500, 2780, false},
    {"g5.xlarge", kAmd, 3300, 3500, true},
    {"g5.2xlarge", kAmd, 3300, 3500, true},
    {"g5.4xlarge", kAmd, 3300, 4750, true},
    {"g5.8xlarge", kAmd, 3300, 16000, true},
    {"g5.12xlarge", kAmd, 3300, 16000, true},
    {"g5.16xlarge", kAmd, 3300, 16000, true},
    {"g5.24xlarge", kAmd, 3300, 19000, true},
    {"g5.48xlarge", kAmd, 3300, 19000, true},
    {"p4d.24xlarge", kIntel, 3000, 19000, true},
    {"p5.4xlarge", kAmd, 3600, 10000, true},
    {"p5.48xlarge", kAmd, 3600, 80000, true},
    {"trn1.2xlarge", kIntel, 3500, 20000, true},
    {"trn1.32xlarge", kIntel, 3500, 80000, true},
    {"inf2.xlarge", kAmd, 3600, 10000, true},
    {"inf2.8xlarge", kAmd, 3600, 10000, true},
    {"inf2.24xlarge", kAmd, 3600, 30000, true},
    {"inf2.48xlarge", kAmd, 3600, 60000, true},
    {"g4ad.xlarge", kAmd, 3000, 3170, true},
    {"g4ad.2xlarge", kAmd, 3000, 3170, true},
    {"g4ad.4xlarge", kAmd, 3000, 3170, true},
    {"g4ad.8xlarge", kAmd, 3000, 3170, true},
    {"g4ad.16xlarge", kAmd, 3000, 6300, true},
    {"dl1.24xlarge", kIntel, -1, 19000, true},
};

constexpr StorageRow kStorage[] = {
    {"g5.xlarge", 1, 250},
    {"g5.2xlarge", 1, 450},
    {"g5.4xlarge", 1, 600},
    {"g5.8xlarge", 1, 900},
    {"g5.12xlarge", 1, 3800},
    {"g5.16xlarge", 1, 1900},
    {"g5.24xlarge", 1, 3800},
    {"g5.48xlarge", 2, 3800},
    {"p4d.24xlarge", 8, 1000},
    {"p5.4xlarge", 1, 3800},
    {"p5.48xlarge", 8, 3800},
    {"trn1.2xlarge", 1, 474},
    {"trn1.32xlarge", 4, 1900},
    {"g4ad.xlarge", 1, 150},
    {"g4ad.2xlarge", 1, 300},
    {"g4ad.4xlarge", 1, 600},
    {"g4ad.8xlarge", 1, 1200},
    {"g4ad.16xlarge", 2, 1200},
    {"dl1.24xlarge", 4, 1000},
};

constexpr AcceleratorRow kAccelerators[] = {
    {"g5.xlarge", true, 1, "nvidia", "a10g", 22888, 0},
    {"g5.2xlarge", true, 1, "nvidia", "a10g", 22888, 0},
    {"g5.4xlarge", true, 1, "nvidia", "a10g", 22888, 0},
    {"g5.8xlarge", true, 1, "nvidia", "a10g", 22888, 0},
    {"g5.12xlarge", true, 4, "nvidia", "a10g", 22888, 0},
    {"g5.16xlarge", true, 1, "nvidia", "a10g", 22888, 0},
    {"g5.24xlarge", true, 4, "nvidia", "a10g", 22888, 0},
    {"g5.48xlarge", true, 8, "nvidia", "a10g", 22888, 0},
    {"p4d.24xlarge", true, 8, "nvidia", "a100", 40960, 0},
    {"p5.4xlarge", true, 1, "nvidia", "h100", 81920, 0},
    {"p5.48xlarge", true, 8, "nvidia", "h100", 81920, 0},
    {"trn1.2xlarge", false, 1, "aws", "trainium", -1, 2},
    {"trn1.32xlarge", false, 16, "aws", "trainium", -1, 2},
    {"inf2.xlarge", false, 1, "aws", "inferentia2", -1, 2},
    {"inf2.8xlarge", false, 1, "aws", "inferentia2", -1, 2},
    {"inf2.24xlarge", false, 6, "aws", "inferentia2", -1, 2},
    {"inf2.48xlarge", false, 12, "aws", "inferentia2", -1, 2},
    {"g4ad.xlarge", true, 1, "amd", "radeon-pro-v520", 8192, 0},
    {"g4ad.2xlarge", true, 1, "amd", "radeon-pro-v520", 8192, 0},
    {"g4ad.4xlarge", true, 1, "amd", "radeon-pro-v520", 8192, 0},
    {"g4ad.8xlarge", true, 2, "amd", "radeon-pro-v520", 8192, 0},
    {"g4ad.16xlarge", true, 4, "amd", "radeon-pro-v520", 8192, 0},
    {"dl1.24xlarge", true, 8, "habana", "gaudi-hl-205", 32768, 0},
};
// clang-format on

InstanceTypeInfo fromRow(const Row& row) {
  InstanceTypeInfo info;
  info.name = row.name;
  info.family = info.name.substr(0, info.name.find('.'));
  info.architecture = row.arch == kX86 ? Architecture::X86_64 : Architecture::Arm64;
  info.vcpu = row.vcpu;
  info.memoryMiB = row.memoryMiB;
  info.hypervisor = row.hypervisor == kNitro ? "nitro" : row.hypervisor == kXen ? "xen" : "";
  info.bareMetal = row.hypervisor == kMetal;
  for (int i = 0; i < row.cards; ++i) {
    info.networkCards.push_back({i, row.interfacesPerCard});
  }
  info.maxNetworkInterfaces = row.cards * row.interfacesPerCard;
  info.ipv4PerInterface = row.ipv4PerInterface;
  if (row.ipv6PerInterface >= 0) {
    info.ipv6PerInterface = row.ipv6PerInterface;
  }
  info.efaSupported = row.maxEfa > 0;
  info.maximumEfaInterfaces = row.maxEfa;
  if (row.bandwidthMbps >= 0) {
    info.networkBandwidthMbps = row.bandwidthMbps;
  }
  if (row.price >= 0) {
    info.onDemandPrice = row.price;
  }
  if (row.usageClasses & kCb) {
    info.supportedUsageClasses.push_back("capacity-block");
  }
  if (row.usageClasses & kOd) {
    info.supportedUsageClasses.push_back("on-demand");
  }
  if (row.usageClasses & kSpot) {
    info.supportedUsageClasses.push_back("spot");
  }
  return info;
}

std::string_view cpuName(Cpu cpu) {
  switch (cpu) {
    case kIntel:
      return "intel";
    case kAmd:
      return "amd";
    case kAws:
      return "aws";
  }
  return "";
}

// The type of `name`; every name of the side tables is one of kRows.
InstanceTypeInfo& typeNamed(std::vector<InstanceTypeInfo>& types, std::string_view name) {
  return *std::find_if(types.begin(), types.end(),
                       [&](const InstanceTypeInfo& t) { return t.name == name; });
}

}  // namespace

Catalog builtinCatalog() {
  std::vector<InstanceTypeInfo> types;
  types.reserve(std::size(kRows));
  for (const Row& row : kRows) {
    types.push_back(fromRow(row));
    types.back().localNvmeGB = 0;
  }
  for (const PlatformRow& p : kPlatform) {
    InstanceTypeInfo& t = typeNamed(types, p.name);
    t.cpuManufacturer = cpuName(p.cpu);
    if (p.clockMhz >= 0) {
      t.sustainedClockSpeedMhz = p.clockMhz;
    }
    t.ebsMaximumBandwidthMbps = p.ebsMaximumMbps;
    t.encryptionInTransit = p.encryptionInTransit;
  }
  for (const StorageRow& s : kStorage) {
    InstanceTypeInfo& t = typeNamed(types, s.name);
    t.localNvmeGB = s.disks * s.diskGB;
    t.localNvmeDisks = s.disks;
  }
  for (const AcceleratorRow& a : kAccelerators) {
    auto it = &typeNamed(types, a.name);
    if (a.gpu) {
      it->gpus = {a.count, a.manufacturer, a.model, a.memoryMiB};
    } else {
      it->accelerators = {a.count, a.manufacturer, a.model, a.neuronCoresPerDevice};
    }
  }
  return Catalog(std::move(types));
}

}  // namespace nodewright::emulators::ec2
