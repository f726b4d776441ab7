// DescribeInstanceTypes and DescribeInstanceTypeOfferings from the catalog. Every catalog type
// is offered in every zone of the world: capacity pools of the fault configuration make
// launches fail, as on EC2, but never remove an offering.
#include <algorithm>
#include <cctype>
#include <iterator>
#include <set>

#include <fmt/format.h>

#include "aws/xml.h"
#include "emulators/ec2/describe_actions.h"
#include "emulators/ec2/filters.h"
#include "emulators/ec2/render.h"
#include "emulators/ec2/xml_names.h"

namespace nodewright::emulators::ec2 {
namespace {

// DescribeInstanceTypes answers at most 100 types per call, DescribeInstanceTypeOfferings 1000
// offerings, with a NextToken for the rest. GUESS: the defaults without MaxResults are the
// maxima of botocore's model.
constexpr int64_t kTypesMin = 5, kTypesMax = 100;
constexpr int64_t kOfferingsMin = 5, kOfferingsMax = 1000;

// Families AWS lists as previous generation. GUESS: the list is from memory of
// https://aws.amazon.com/ec2/previous-generation/; the catalog does not record it.
constexpr std::string_view kPreviousGeneration[] = {
    "c1", "c3", "cc1", "cc2", "cg1", "cr1", "g2", "hi1", "hs1", "i2", "m1", "m2", "m3", "r3", "t1"};

// The facts DescribeInstanceTypes reports that the catalog does not hold, derived from the ones
// it does. Each derivation is a GUESS that holds for the common families.
struct Derived {
  bool currentGeneration = true;
  bool nitro = false;  // Nitro, including bare metal on Nitro hardware
  int threadsPerCore = 2;
  bool burstable = false;
  int ipv6PerInterface = 0;
  std::vector<std::string> usageClasses;
  std::vector<std::string> bootModes;
};

Derived derive(const InstanceTypeInfo& t) {
  Derived d;
  d.currentGeneration = std::find(std::begin(kPreviousGeneration), std::end(kPreviousGeneration),
                                  t.family) == std::end(kPreviousGeneration);
  d.nitro = t.hypervisor.value_or("nitro") != "xen";
  const bool arm =
      t.architecture == Architecture::Arm64 || t.architecture == Architecture::Arm64Mac;
  d.threadsPerCore = arm || t.vcpu.value_or(2) == 1 ? 1 : 2;
  d.burstable = t.family.size() > 1 && t.family[0] == 't' &&
                std::isdigit(static_cast<unsigned char>(t.family[1]));
  d.ipv6PerInterface =
      d.currentGeneration ? t.ipv6PerInterface.value_or(t.ipv4PerInterface.value_or(0)) : 0;
  d.usageClasses = t.supportedUsageClasses;
  if (d.usageClasses.empty()) {
    d.usageClasses = {"on-demand", "spot"};
  }
  if (arm) {
    d.bootModes = {"uefi"};
  } else if (d.nitro) {
    d.bootModes = {"legacy-bios", "uefi"};
  } else {
    d.bootModes = {"legacy-bios"};
  }
  return d;
}

// EC2 spells manufacturers and models as products are named ("NVIDIA", "A10G"); the catalog
// keeps Karpenter's lower-case kebab labels. Clients such as Karpenter compare the
// manufacturer exactly ("NVIDIA") and lower-case the model, so the manufacturer is mapped and
// the model only needs to round-trip through lower-kebab-case.
std::string manufacturerName(std::string_view m) {
  if (m == "intel") {
    return "Intel";
  }
  if (m == "nvidia") {
    return "NVIDIA";
  }
  if (m == "amd") {
    return "AMD";
  }
  if (m == "aws") {
    return "AWS";
  }
  if (m == "habana") {
    return "Habana";
  }
  if (m == "qualcomm") {
    return "Qualcomm";
  }
  if (m == "xilinx") {
    return "Xilinx";
  }
  return std::string(m);
}

// "a10g" -> "A10G", "radeon-pro-v520" -> "Radeon Pro V520", "inferentia2" -> "Inferentia2":
// short model numbers upper-case, words capitalized.
std::string modelName(std::string_view kebab) {
  // Names whose hyphen is EC2's own ("Gaudi HL-205"); lower-kebab-case gives the label back.
  if (kebab == "gaudi-hl-205") {
    return "Gaudi HL-205";
  }
  std::string out;
  size_t start = 0;
  while (start <= kebab.size()) {
    size_t end = std::min(kebab.find('-', start), kebab.size());
    std::string word(kebab.substr(start, end - start));
    const bool number = word.size() <= 5 && word.find_first_of("0123456789") != std::string::npos;
    for (size_t i = 0; i < word.size(); ++i) {
      if (number || i == 0) {
        word[i] = static_cast<char>(std::toupper(static_cast<unsigned char>(word[i])));
      }
    }
    if (!out.empty()) {
      out += ' ';
    }
    out += word;
    start = end + 1;
  }
  return out;
}

// Gbps from Mbps, GHz from MHz: "0.75", "3.1", "100".
std::string thousandths(int64_t value) {
  return fmt::format("{}", static_cast<double>(value) / 1000.0);
}

void addStrings(pugi::xml_node parent, const char* name, const std::vector<std::string>& values) {
  pugi::xml_node list = addElement(parent, name);
  for (const std::string& value : values) {
    addItem(list).text().set(value.c_str());
  }
}

void addNetworkInfo(pugi::xml_node parent, const InstanceTypeInfo& t, const Derived& d) {
  pugi::xml_node net = addElement(parent, "networkInfo");
  addInt(net, "maximumNetworkInterfaces", t.maxNetworkInterfaces);
  std::vector<NetworkCard> cards = t.networkCards;
  if (cards.empty() && t.maxNetworkInterfaces > 0) {
    cards.push_back({0, t.maxNetworkInterfaces});
  }
  addInt(net, "maximumNetworkCards", static_cast<int64_t>(std::max<size_t>(cards.size(), 1)));
  addInt(net, "defaultNetworkCardIndex", t.defaultNetworkCardIndex);
  pugi::xml_node list = addElement(net, "networkCards");
  for (const NetworkCard& card : cards) {
    pugi::xml_node item = addItem(list);
    addInt(item, "networkCardIndex", card.index);
    addInt(item, "maximumNetworkInterfaces", card.maximumNetworkInterfaces);
    // The data gives the bandwidth of all cards together; it is a card's own only when there
    // is one.
    if (t.networkBandwidthMbps && cards.size() == 1) {
      addText(item, "baselineBandwidthInGbps", thousandths(*t.networkBandwidthMbps));
    }
  }
  if (t.ipv4PerInterface) {
    addInt(net, "ipv4AddressesPerInterface", *t.ipv4PerInterface);
  }
  addInt(net, "ipv6AddressesPerInterface", d.ipv6PerInterface);
  addBool(net, "ipv6Supported", d.ipv6PerInterface > 0);
  addText(net, "enaSupport", d.nitro ? "required" : "supported");
  addBool(net, "efaSupported", t.efaSupported);
  if (t.efaSupported) {
    addInt(addElement(net, "efaInfo"), "maximumEfaInterfaces", t.maximumEfaInterfaces);
  }
  if (t.encryptionInTransit) {
    addBool(net, "encryptionInTransitSupported", *t.encryptionInTransit);
  }
}

void addAccelerators(pugi::xml_node parent, const InstanceTypeInfo& t) {
  if (t.gpus.count > 0) {
    pugi::xml_node gpu = addElement(parent, "gpuInfo");
    pugi::xml_node item = addItem(addElement(gpu, "gpus"));
    if (!t.gpus.name.empty()) {
      addText(item, "name", modelName(t.gpus.name));
    }
    if (!t.gpus.manufacturer.empty()) {
      addText(item, "manufacturer", manufacturerName(t.gpus.manufacturer));
    }
    addInt(item, "count", t.gpus.count);
    if (t.gpus.memoryMiB) {
      addInt(addElement(item, "memoryInfo"), "sizeInMiB", *t.gpus.memoryMiB);
      addInt(gpu, "totalGpuMemoryInMiB", *t.gpus.memoryMiB * t.gpus.count);
    }
  }
  if (t.accelerators.count <= 0) {
    return;
  }
  const bool neuron = t.accelerators.manufacturer == "aws";
  if (neuron) {
    // Karpenter reads Inferentia and Trainium devices from neuronInfo: the device count for
    // aws.amazon.com/neuron, times CoreInfo.Count for aws.amazon.com/neuroncore.
    pugi::xml_node neuronInfo = addElement(parent, "neuronInfo");
    pugi::xml_node device = addItem(addElement(neuronInfo, "neuronDevices"));
    addInt(device, "count", t.accelerators.count);
    addText(device, "name", modelName(t.accelerators.name));
    if (t.accelerators.neuronCoresPerDevice > 0) {
      addInt(addElement(device, "coreInfo"), "count", t.accelerators.neuronCoresPerDevice);
    }
  }
  // Inferentia (1 and 2) and the other inference accelerators (Qualcomm AI 100) are listed in
  // inferenceAcceleratorInfo too, whose list members are <member>, not <item>; Trainium is not.
  if (!neuron || t.accelerators.name.starts_with("inferentia")) {
    pugi::xml_node member = addElement(
        addElement(addElement(parent, "inferenceAcceleratorInfo"), "accelerators"), "member");
    addInt(member, "count", t.accelerators.count);
    addText(member, "name", modelName(t.accelerators.name));
    addText(member, "manufacturer", manufacturerName(t.accelerators.manufacturer));
  }
}

// Instance storage, where the catalog knows it, and EBS.
void addStorage(pugi::xml_node item, const InstanceTypeInfo& t, const Derived& d) {
  if (t.localNvmeGB) {
    addBool(item, "instanceStorageSupported", *t.localNvmeGB > 0);
  }
  if (t.localNvmeGB.value_or(0) > 0) {
    pugi::xml_node storage = addElement(item, "instanceStorageInfo");
    addInt(storage, "totalSizeInGB", *t.localNvmeGB);
    if (t.localNvmeDisks && *t.localNvmeDisks > 0) {
      pugi::xml_node disk = addItem(addElement(storage, "disks"));
      addInt(disk, "sizeInGB", *t.localNvmeGB / *t.localNvmeDisks);
      addInt(disk, "count", *t.localNvmeDisks);
      // Only the built-in catalog knows the split into disks, and its disks are all SSDs
      // (EC2's data); the HDD types (d3, d3en, h1) are not among them.
      addText(disk, "type", "ssd");
    }
    addText(storage, "nvmeSupport", "required");
    // EC2 encrypts NVMe instance store volumes with XTS-AES-256, always.
    addText(storage, "encryptionSupport", "required");
  }
  pugi::xml_node ebs = addElement(item, "ebsInfo");
  addText(ebs, "ebsOptimizedSupport", d.nitro ? "default" : "supported");
  addText(ebs, "encryptionSupport", "supported");
  if (t.ebsMaximumBandwidthMbps) {
    addInt(addElement(ebs, "ebsOptimizedInfo"), "maximumBandwidthInMbps",
           *t.ebsMaximumBandwidthMbps);
  }
  addText(ebs, "nvmeSupport", d.nitro ? "required" : "unsupported");
}

void addInstanceType(pugi::xml_node list, const InstanceTypeInfo& t) {
  const Derived d = derive(t);
  pugi::xml_node item = addItem(list);
  addText(item, "instanceType", t.name);
  addBool(item, "currentGeneration", d.currentGeneration);
  addBool(item, "freeTierEligible", t.name == "t2.micro" || t.name == "t3.micro");
  addStrings(item, "supportedUsageClasses", d.usageClasses);
  addStrings(item, "supportedRootDeviceTypes", {"ebs"});
  addStrings(item, "supportedVirtualizationTypes", {"hvm"});
  addBool(item, "bareMetal", t.bareMetal);
  if (t.hypervisor && !t.hypervisor->empty()) {
    addText(item, "hypervisor", *t.hypervisor);
  }
  pugi::xml_node processor = addElement(item, "processorInfo");
  addStrings(processor, "supportedArchitectures",
             t.architecture
                 ? std::vector<std::string>{std::string(architectureName(*t.architecture))}
                 : std::vector<std::string>{});
  if (t.sustainedClockSpeedMhz) {
    addText(processor, "sustainedClockSpeedInGhz", thousandths(*t.sustainedClockSpeedMhz));
  }
  if (!t.cpuManufacturer.empty()) {
    addText(processor, "manufacturer", manufacturerName(t.cpuManufacturer));
  }
  if (t.vcpu) {
    pugi::xml_node vcpu = addElement(item, "vCpuInfo");
    addInt(vcpu, "defaultVCpus", *t.vcpu);
    addInt(vcpu, "defaultCores", std::max(1, *t.vcpu / d.threadsPerCore));
    addInt(vcpu, "defaultThreadsPerCore", d.threadsPerCore);
  }
  if (t.memoryMiB) {
    addInt(addElement(item, "memoryInfo"), "sizeInMiB", *t.memoryMiB);
  }
  addStorage(item, t, d);
  addNetworkInfo(item, t, d);
  addAccelerators(item, t);
  addBool(item, "burstablePerformanceSupported", d.burstable);
  addStrings(item, "supportedBootModes", d.bootModes);
}

std::string boolText(bool value) {
  return value ? "true" : "false";
}

// The values of a DescribeInstanceTypes filter name for one type.
std::vector<std::string> typeValues(const InstanceTypeInfo& t, std::string_view name) {
  const Derived d = derive(t);
  auto number = [](std::optional<int64_t> v) {
    return v ? std::vector<std::string>{std::to_string(*v)} : std::vector<std::string>{};
  };
  if (name == "instance-type") {
    return {t.name};
  }
  if (name == "current-generation") {
    return {boolText(d.currentGeneration)};
  }
  if (name == "bare-metal") {
    return {boolText(t.bareMetal)};
  }
  if (name == "burstable-performance-supported") {
    return {boolText(d.burstable)};
  }
  if (name == "free-tier-eligible") {
    return {boolText(t.name == "t2.micro" || t.name == "t3.micro")};
  }
  if (name == "hypervisor") {
    return t.hypervisor && !t.hypervisor->empty() ? std::vector<std::string>{*t.hypervisor}
                                                  : std::vector<std::string>{};
  }
  if (name == "instance-storage-supported") {
    return t.localNvmeGB ? std::vector<std::string>{boolText(*t.localNvmeGB > 0)}
                         : std::vector<std::string>{};
  }
  if (name == "processor-info.supported-architecture") {
    return t.architecture ? std::vector<std::string>{std::string(architectureName(*t.architecture))}
                          : std::vector<std::string>{};
  }
  if (name == "supported-boot-mode") {
    return d.bootModes;
  }
  if (name == "supported-root-device-type") {
    return {"ebs"};
  }
  if (name == "supported-usage-class") {
    return d.usageClasses;
  }
  if (name == "supported-virtualization-type") {
    return {"hvm"};
  }
  if (name == "vcpu-info.default-vcpus") {
    return number(t.vcpu);
  }
  if (name == "vcpu-info.default-threads-per-core") {
    return {std::to_string(d.threadsPerCore)};
  }
  if (name == "memory-info.size-in-mib") {
    return number(t.memoryMiB);
  }
  if (name == "network-info.efa-supported") {
    return {boolText(t.efaSupported)};
  }
  if (name == "network-info.efa-info.maximum-efa-interfaces") {
    return number(t.efaSupported ? std::optional<int64_t>(t.maximumEfaInterfaces) : std::nullopt);
  }
  if (name == "network-info.encryption-in-transit-supported") {
    return t.encryptionInTransit ? std::vector<std::string>{boolText(*t.encryptionInTransit)}
                                 : std::vector<std::string>{};
  }
  if (name == "network-info.ipv4-addresses-per-interface") {
    return number(t.ipv4PerInterface);
  }
  if (name == "network-info.ipv6-addresses-per-interface") {
    return number(d.ipv6PerInterface);
  }
  if (name == "network-info.ipv6-supported") {
    return {boolText(d.ipv6PerInterface > 0)};
  }
  if (name == "network-info.maximum-network-cards") {
    return {std::to_string(std::max<size_t>(t.networkCards.size(), 1))};
  }
  if (name == "network-info.maximum-network-interfaces") {
    return number(t.maxNetworkInterfaces);
  }
  return {};
}

const std::initializer_list<std::string_view> kTypeFilters = {
    "instance-type",
    "current-generation",
    "bare-metal",
    "burstable-performance-supported",
    "free-tier-eligible",
    "hypervisor",
    "instance-storage-supported",
    "processor-info.supported-architecture",
    "supported-boot-mode",
    "supported-root-device-type",
    "supported-usage-class",
    "supported-virtualization-type",
    "vcpu-info.default-vcpus",
    "vcpu-info.default-threads-per-core",
    "memory-info.size-in-mib",
    "network-info.efa-supported",
    "network-info.efa-info.maximum-efa-interfaces",
    "network-info.encryption-in-transit-supported",
    "network-info.ipv4-addresses-per-interface",
    "network-info.ipv6-addresses-per-interface",
    "network-info.ipv6-supported",
    "network-info.maximum-network-cards",
    "network-info.maximum-network-interfaces",
};

aws::ApiResult<std::string> describeInstanceTypes(ActionContext& ctx) {
  auto names = ctx.params.strings("InstanceType");
  if (!names) {
    return tl::unexpected(names.error());
  }
  auto filters = parseFilters(ctx.params);
  if (!filters) {
    return tl::unexpected(filters.error());
  }
  if (auto ok = checkFilterNames(*filters, kTypeFilters, /*withTags=*/false); !ok) {
    return tl::unexpected(ok.error());
  }
  auto page = parsePageRequest(ctx.params, kTypesMin, kTypesMax);
  if (!page) {
    return tl::unexpected(page.error());
  }
  std::vector<const InstanceTypeInfo*> candidates;
  if (names->empty()) {
    for (const InstanceTypeInfo& t : ctx.catalog.all()) {
      candidates.push_back(&t);
    }
  } else {
    std::vector<std::string> unknown;
    for (const std::string& name : std::set<std::string>(names->begin(), names->end())) {
      if (const InstanceTypeInfo* t = ctx.catalog.find(name)) {
        candidates.push_back(t);
      } else {
        unknown.push_back(name);
      }
    }
    // Source: EC2's reply to an unknown type (scylladb/scylla-cluster-tests#12419).
    if (!unknown.empty()) {
      return aws::apiFail(
          "InvalidInstanceType",
          "The following supplied instance types do not exist: [" + joinIds(unknown) + "]");
    }
  }
  if (auto ok = checkDryRun(ctx.params); !ok) {
    return tl::unexpected(ok.error());
  }
  std::vector<const InstanceTypeInfo*> matches;
  std::vector<std::string> keys;
  for (const InstanceTypeInfo* t : candidates) {
    if (matchesFilters(*filters, {}, [t](std::string_view n) { return typeValues(*t, n); })) {
      matches.push_back(t);
      keys.push_back(t->name);
    }
  }
  PageSlice slice = slicePage(keys, page->after, page->limit ? page->limit : kTypesMax);
  aws::xml::Ec2Response response(ctx.action, ctx.requestId);
  pugi::xml_node list = addElement(response.root(), "instanceTypeSet");
  for (size_t i = slice.begin; i < slice.end; ++i) {
    addInstanceType(list, *matches[i]);
  }
  addNextToken(response.root(), slice.nextAfter);
  return response.str();
}

struct Offering {
  const InstanceTypeInfo* type;
  const std::string* location;
};

aws::ApiResult<std::string> describeInstanceTypeOfferings(ActionContext& ctx) {
  const std::string locationType = ctx.params.strOr("LocationType", "region");
  std::vector<std::string> locations;
  if (locationType == "region") {
    locations.push_back(ctx.world.region);
  } else if (locationType == "availability-zone" || locationType == "availability-zone-id") {
    for (const ZoneConfig& zone : ctx.world.zones) {
      locations.push_back(locationType == "availability-zone" ? zone.name : zone.zoneId);
    }
  } else {
    // GUESS: the message.
    return aws::apiFail("InvalidParameterValue",
                        fmt::format("Value ( {} ) for parameter locationType is invalid. Valid "
                                    "values are region, availability-zone, availability-zone-id.",
                                    locationType));
  }
  auto filters = parseFilters(ctx.params);
  if (!filters) {
    return tl::unexpected(filters.error());
  }
  if (auto ok = checkFilterNames(*filters, {"instance-type", "location"}, /*withTags=*/false);
      !ok) {
    return tl::unexpected(ok.error());
  }
  auto page = parsePageRequest(ctx.params, kOfferingsMin, kOfferingsMax);
  if (!page) {
    return tl::unexpected(page.error());
  }
  if (auto ok = checkDryRun(ctx.params); !ok) {
    return tl::unexpected(ok.error());
  }
  // Keys "type location": a space sorts before every character of a type name, so the order
  // is by type, then location.
  std::vector<std::pair<std::string, Offering>> matches;
  for (const InstanceTypeInfo& t : ctx.catalog.all()) {
    for (const std::string& location : locations) {
      auto values = [&](std::string_view n) {
        return n == "instance-type" ? std::vector<std::string>{t.name}
                                    : std::vector<std::string>{location};
      };
      if (matchesFilters(*filters, {}, values)) {
        matches.push_back({t.name + " " + location, Offering{&t, &location}});
      }
    }
  }
  std::sort(matches.begin(), matches.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> keys;
  keys.reserve(matches.size());
  for (const auto& match : matches) {
    keys.push_back(match.first);
  }
  PageSlice slice = slicePage(keys, page->after, page->limit ? page->limit : kOfferingsMax);
  aws::xml::Ec2Response response(ctx.action, ctx.requestId);
  pugi::xml_node list = addElement(response.root(), "instanceTypeOfferingSet");
  for (size_t i = slice.begin; i < slice.end; ++i) {
    pugi::xml_node item = addItem(list);
    addText(item, "instanceType", matches[i].second.type->name);
    addText(item, "locationType", locationType);
    addText(item, "location", *matches[i].second.location);
  }
  addNextToken(response.root(), slice.nextAfter);
  return response.str();
}

}  // namespace

void addInstanceTypeActions(ActionTable& table) {
  table["DescribeInstanceTypes"] = {bucket::kDescribe, describeInstanceTypes};
  table["DescribeInstanceTypeOfferings"] = {bucket::kDescribe, describeInstanceTypeOfferings};
}

}  // namespace nodewright::emulators::ec2
