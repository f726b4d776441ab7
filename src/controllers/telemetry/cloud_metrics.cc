#include "controllers/telemetry/cloud_metrics.h"

#include <chrono>

namespace nodewright::controllers::telemetry {
namespace {

struct Families {
  runtime::Family<runtime::Histogram>& duration;
  runtime::Family<runtime::Counter>& errors;
  runtime::Family<runtime::Gauge>& cpuCores;
  runtime::Family<runtime::Gauge>& memoryBytes;
  runtime::Family<runtime::Gauge>& offeringAvailable;
  runtime::Family<runtime::Gauge>& offeringPrice;
};

// Upstream's default buckets for duration_seconds are client_golang's DefBuckets.
Families families(runtime::Registry& r) {
  return Families{
      r.histogram("karpenter_cloudprovider_duration_seconds",
                  "Duration of cloud provider method calls. Labeled by the controller, method "
                  "name and provider.",
                  {"controller", "method", "provider"}),
      r.counter("karpenter_cloudprovider_errors_total",
                "Total number of errors returned from CloudProvider calls.",
                {"controller", "method", "provider", "error"}),
      r.gauge("karpenter_cloudprovider_instance_type_cpu_cores",
              "VCPUs cores for a given instance type.", {"instance_type"}),
      r.gauge("karpenter_cloudprovider_instance_type_memory_bytes",
              "Memory, in bytes, for a given instance type.", {"instance_type"}),
      r.gauge("karpenter_cloudprovider_instance_type_offering_available",
              "Instance type offering availability, based on instance type, capacity type, and "
              "zone",
              {"instance_type", "capacity_type", "zone"}),
      r.gauge("karpenter_cloudprovider_instance_type_offering_price_estimate",
              "Instance type offering estimated hourly price used when making informed "
              "decisions on node cost calculation, based on instance type, capacity type, and "
              "zone.",
              {"instance_type", "capacity_type", "zone"}),
  };
}

}  // namespace

void registerCloudProviderMetrics(runtime::Registry& registry) {
  families(registry);
}

std::string cloudErrorLabel(const core::Error& error) {
  switch (error.code()) {
    case core::Code::InsufficientCapacity:
      return "InsufficientCapacityError";
    case core::Code::NotFound:
      return "NodeClaimNotFoundError";
    default:
      return "";
  }
}

MeasuredCloudProvider::MeasuredCloudProvider(cloud::CloudProvider& inner, std::string controller,
                                             const core::Clock& clock, runtime::Registry& registry)
    : inner_(inner),
      controller_(std::move(controller)),
      clock_(clock),
      duration_(families(registry).duration),
      errors_(families(registry).errors),
      cpuCores_(families(registry).cpuCores),
      memoryBytes_(families(registry).memoryBytes),
      offeringAvailable_(families(registry).offeringAvailable),
      offeringPrice_(families(registry).offeringPrice) {}

template <class Call>
auto MeasuredCloudProvider::measured(const char* method, Call&& call) {
  const auto start = clock_.steadyNow();
  auto result = call();
  const double seconds = std::chrono::duration<double>(clock_.steadyNow() - start).count();
  const std::string provider = inner_.name();
  duration_.with({controller_, method, provider}).observe(seconds);
  if (!result) {
    errors_.with({controller_, method, provider, cloudErrorLabel(result.error())}).inc();
  }
  return result;
}

core::Result<cloud::Machine> MeasuredCloudProvider::create(const api::karpenter::NodeClaim& claim) {
  return measured("Create", [&] { return inner_.create(claim); });
}

core::Result<cloud::Machine> MeasuredCloudProvider::get(std::string_view providerID) {
  return measured("Get", [&] { return inner_.get(providerID); });
}

core::Result<std::vector<cloud::Machine>> MeasuredCloudProvider::list() {
  return measured("List", [&] { return inner_.list(); });
}

core::Status MeasuredCloudProvider::remove(std::string_view providerID) {
  return measured("Delete", [&] { return inner_.remove(providerID); });
}

core::Result<cloud::InstanceTypes> MeasuredCloudProvider::instanceTypes(
    const api::karpenter::NodePool& pool) {
  auto types = measured("GetInstanceTypes", [&] { return inner_.instanceTypes(pool); });
  if (types) {
    recordInstanceTypes(*types);
  }
  return types;
}

core::Result<std::vector<cloud::DriftCheck>> MeasuredCloudProvider::isDrifted(
    const api::karpenter::NodeClaim& claim) {
  return measured("IsDrifted", [&] { return inner_.isDrifted(claim); });
}

void MeasuredCloudProvider::recordInstanceTypes(const cloud::InstanceTypes& types) {
  for (const cloud::InstanceType& type : types.compatible) {
    if (auto cpu = type.capacity.find("cpu"); cpu != type.capacity.end()) {
      cpuCores_.with({type.name}).set(cpu->second.asDouble());
    }
    if (auto memory = type.capacity.find("memory"); memory != type.capacity.end()) {
      memoryBytes_.with({type.name}).set(static_cast<double>(memory->second.value()));
    }
    for (const cloud::Offering& offering : type.offerings) {
      const runtime::Labels labels{type.name, offering.capacityType, offering.zone};
      offeringAvailable_.with(labels).set(offering.available ? 1 : 0);
      offeringPrice_.with(labels).set(offering.pricePerHour);
    }
  }
}

}  // namespace nodewright::controllers::telemetry
