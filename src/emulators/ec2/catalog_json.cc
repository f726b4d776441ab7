// Loads an instance catalog in the format of ../shared/data/aws-instance-types.json.
#include "emulators/ec2/catalog.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unordered_set>
#include <utility>

namespace nodewright::emulators::ec2 {
namespace {

using nlohmann::json;

// Reads the fields of one record. The first type error is kept and later reads return
// defaults, so a record is read straight through and checked once at the end.
class RecordReader {
 public:
  RecordReader(const json& record, std::string prefix)
      : record_(record), prefix_(std::move(prefix)) {}

  std::optional<int64_t> integer(const char* key) {
    const json* v = get(key);
    if (v == nullptr) {
      return std::nullopt;
    }
    if (!v->is_number_integer()) {
      fail(key, "an integer", *v);
      return std::nullopt;
    }
    return v->get<int64_t>();
  }

  std::optional<double> number(const char* key) {
    const json* v = get(key);
    if (v == nullptr) {
      return std::nullopt;
    }
    if (!v->is_number()) {
      fail(key, "a number", *v);
      return std::nullopt;
    }
    return v->get<double>();
  }

  std::optional<std::string> string(const char* key) {
    const json* v = get(key);
    if (v == nullptr) {
      return std::nullopt;
    }
    if (!v->is_string()) {
      fail(key, "a string", *v);
      return std::nullopt;
    }
    return v->get<std::string>();
  }

  std::optional<bool> boolean(const char* key) {
    const json* v = get(key);
    if (v == nullptr) {
      return std::nullopt;
    }
    if (!v->is_boolean()) {
      fail(key, "a boolean", *v);
      return std::nullopt;
    }
    return v->get<bool>();
  }

  // An array, or nullptr when absent or null.
  const json* array(const char* key) {
    const json* v = get(key);
    if (v != nullptr && !v->is_array()) {
      fail(key, "an array", *v);
      return nullptr;
    }
    return v;
  }

  // Whether the record's "sources" map names a source whose key starts with `prefix`.
  bool hasSource(std::string_view prefix) const {
    const json* sources = get("sources");
    if (sources == nullptr || !sources->is_object()) {
      return false;
    }
    for (const auto& source : sources->items()) {
      if (std::string_view(source.key()).starts_with(prefix)) {
        return true;
      }
    }
    return false;
  }

  void fail(std::string_view field, std::string_view expected, const json& got) {
    if (!error_) {
      error_ = core::Error::invalid(fmt::format("{}: field \"{}\": expected {}, got {}", prefix_,
                                                field, expected, got.type_name()));
    }
  }
  void failWith(std::string_view field, std::string_view problem) {
    if (!error_) {
      error_ = core::Error::invalid(fmt::format("{}: field \"{}\": {}", prefix_, field, problem));
    }
  }

  const std::optional<core::Error>& error() const { return error_; }

 private:
  // nullptr for an absent or null field: the data file writes null for unknown values.
  const json* get(const char* key) const {
    auto it = record_.find(key);
    return it == record_.end() || it->is_null() ? nullptr : &*it;
  }

  const json& record_;
  std::string prefix_;
  std::optional<core::Error> error_;
};

std::optional<int> narrow(std::optional<int64_t> v) {
  return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
}

void readNetworkCards(RecordReader& r, const json* cards, InstanceTypeInfo& info) {
  if (cards == nullptr) {
    return;
  }
  for (size_t i = 0; i < cards->size(); ++i) {
    const json& card = (*cards)[i];
    std::string field = fmt::format("networkCards[{}]", i);
    auto index = card.is_object() ? card.find("index") : card.end();
    auto max = card.is_object() ? card.find("maximumNetworkInterfaces") : card.end();
    if (index == card.end() || max == card.end() || !index->is_number_integer() ||
        !max->is_number_integer()) {
      r.failWith(field, "expected {\"index\": integer, \"maximumNetworkInterfaces\": integer}");
      return;
    }
    info.networkCards.push_back({index->get<int>(), max->get<int>()});
  }
  std::sort(info.networkCards.begin(), info.networkCards.end(),
            [](const NetworkCard& a, const NetworkCard& b) { return a.index < b.index; });
}

void readUsageClasses(RecordReader& r, const json* classes, InstanceTypeInfo& info) {
  if (classes == nullptr) {
    return;
  }
  for (const json& c : *classes) {
    if (!c.is_string()) {
      r.fail("supportedUsageClasses", "an array of strings", c);
      return;
    }
    info.supportedUsageClasses.push_back(c.get<std::string>());
  }
}

core::Result<InstanceTypeInfo> readRecord(const json& record, size_t i, std::string_view source) {
  if (!record.is_object()) {
    return core::fail(core::Error::invalid(
        fmt::format("{}: record {}: expected an object, got {}", source, i, record.type_name())));
  }
  auto name = record.find("name");
  if (name == record.end() || !name->is_string() || name->get_ref<const std::string&>().empty()) {
    return core::fail(core::Error::invalid(
        fmt::format("{}: record {}: field \"name\": expected a non-empty string", source, i)));
  }
  InstanceTypeInfo info;
  info.name = name->get<std::string>();
  RecordReader fields(record, fmt::format("{}: record {} ({})", source, i, info.name));
  info.family = fields.string("family").value_or(info.name.substr(0, info.name.find('.')));
  if (auto arch = fields.string("architecture")) {
    info.architecture = parseArchitecture(*arch);
    if (!info.architecture) {
      fields.failWith("architecture", fmt::format("unknown architecture \"{}\"", *arch));
    }
  }
  info.vcpu = narrow(fields.integer("vcpu"));
  info.memoryMiB = fields.integer("memoryMiB");
  info.hypervisor = fields.string("hypervisor");
  info.bareMetal = fields.boolean("bareMetal").value_or(false);
  readNetworkCards(fields, fields.array("networkCards"), info);
  info.defaultNetworkCardIndex = narrow(fields.integer("defaultNetworkCardIndex")).value_or(0);
  int cardTotal = 0;
  for (const NetworkCard& c : info.networkCards) {
    cardTotal += c.maximumNetworkInterfaces;
  }
  info.maxNetworkInterfaces = narrow(fields.integer("maxNetworkInterfaces")).value_or(cardTotal);
  info.ipv4PerInterface = narrow(fields.integer("ipv4AddressesPerInterface"));
  info.ipv6PerInterface = narrow(fields.integer("ipv6AddressesPerInterface"));
  info.efaSupported = fields.boolean("efaSupported").value_or(false);
  info.maximumEfaInterfaces = narrow(fields.integer("maximumEfaInterfaces")).value_or(0);
  info.gpus.count = narrow(fields.integer("gpuCount")).value_or(0);
  info.gpus.manufacturer = fields.string("gpuManufacturer").value_or("");
  info.gpus.name = fields.string("gpuName").value_or("");
  info.gpus.memoryMiB = fields.integer("gpuMemoryMiB");
  info.accelerators.count = narrow(fields.integer("acceleratorCount")).value_or(0);
  info.accelerators.manufacturer = fields.string("acceleratorManufacturer").value_or("");
  info.accelerators.name = fields.string("acceleratorName").value_or("");
  // The file gives the type's totals; EC2 gives the cores of one device (NeuronInfo
  // NeuronDevices[].CoreInfo.Count).
  const auto neuronDevices = fields.integer("neuronDevices");
  const auto neuronCores = fields.integer("neuronCores");
  if (neuronDevices && neuronCores && *neuronDevices > 0) {
    info.accelerators.neuronCoresPerDevice = static_cast<int>(*neuronCores / *neuronDevices);
  }
  info.networkBandwidthMbps = fields.integer("networkBandwidthMbps");
  info.encryptionInTransit = fields.boolean("encryptionInTransitSupported");
  info.cpuManufacturer = fields.string("cpuManufacturer").value_or("");
  info.sustainedClockSpeedMhz = narrow(fields.integer("sustainedClockSpeedMhz"));
  info.ebsMaximumBandwidthMbps = fields.integer("ebsBandwidthMbps");
  info.localNvmeGB = fields.integer("localNvmeGB");
  // Karpenter's docs list the instance-local-nvme label of every type with NVMe instance
  // storage, and on Nitro (bare metal included) all instance storage is NVMe: a Nitro type the
  // docs describe without the label has none. Checked against moto's copy of EC2's data for
  // the 739 such types it has.
  const bool onNitro = info.hypervisor == "nitro" || (info.bareMetal && info.hypervisor == "");
  if (!info.localNvmeGB && onNitro && fields.hasSource("karpenter-docs")) {
    info.localNvmeGB = 0;
  }
  info.onDemandPrice = fields.number("onDemandPriceUSDPerHour");
  readUsageClasses(fields, fields.array("supportedUsageClasses"), info);
  if (fields.error()) {
    return core::fail(*fields.error());
  }
  return info;
}

// 1-based line and column of a byte offset, for parse errors.
std::pair<size_t, size_t> lineAndColumn(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  size_t line = 1 + std::count(text.begin(), text.begin() + offset, '\n');
  size_t lineStart = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  size_t column = lineStart == std::string_view::npos ? offset + 1 : offset - lineStart;
  return {line, column};
}

}  // namespace

core::Result<Catalog> parseCatalog(std::string_view text, std::string_view source) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    // e.byte is 1-based and points just past the offending character.
    auto [line, column] = lineAndColumn(text, e.byte == 0 ? 0 : e.byte - 1);
    return core::fail(core::Error::invalid(
        fmt::format("{}:{}:{}: invalid JSON: {}", source, line, column, e.what())));
  }
  if (!doc.is_array()) {
    return core::fail(core::Error::invalid(fmt::format(
        "{}: expected a JSON array of instance types, got {}", source, doc.type_name())));
  }
  std::vector<InstanceTypeInfo> types;
  types.reserve(doc.size());
  std::unordered_set<std::string> seen;
  for (size_t i = 0; i < doc.size(); ++i) {
    auto info = readRecord(doc[i], i, source);
    if (!info) {
      return core::fail(info.error());
    }
    if (!seen.insert(info->name).second) {
      return core::fail(core::Error::invalid(
          fmt::format("{}: record {}: duplicate instance type \"{}\"", source, i, info->name)));
    }
    types.push_back(std::move(*info));
  }
  return Catalog(std::move(types));
}

core::Result<Catalog> loadCatalog(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return core::fail(core::Error::notFound(fmt::format("{}: cannot open instance catalog", path)));
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return parseCatalog(buffer.str(), path);
}

}  // namespace nodewright::emulators::ec2
