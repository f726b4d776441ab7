#pragma once

#include <memory>
#include <string>

#include "cloud/cloud_provider.h"
#include "core/clock.h"
#include "runtime/metrics.h"

// Karpenter's CloudProvider metrics decorator (pkg/cloudprovider/metrics): every call is timed
// into karpenter_cloudprovider_duration_seconds{controller,method,provider} and every failure
// counted in karpenter_cloudprovider_errors_total{controller,method,provider,error}. Each
// controller gets its own decorator so the controller label names the caller, as upstream reads
// it from the context. Instance type listings also refresh the AWS provider's instance type
// gauges (cpu cores, memory bytes, offering availability and price).
namespace nodewright::controllers::telemetry {

// Registers the families (so /metrics lists them from the start). Idempotent.
void registerCloudProviderMetrics(runtime::Registry& registry);

class MeasuredCloudProvider final : public cloud::CloudProvider {
 public:
  // `inner`, `clock` and `registry` must outlive this.
  MeasuredCloudProvider(cloud::CloudProvider& inner, std::string controller,
                        const core::Clock& clock, runtime::Registry& registry);

  // cloud::CloudProvider
  std::string name() const override { return inner_.name(); }
  core::Result<cloud::Machine> create(const api::karpenter::NodeClaim& claim) override;
  core::Result<cloud::Machine> get(std::string_view providerID) override;
  core::Result<std::vector<cloud::Machine>> list() override;
  core::Status remove(std::string_view providerID) override;
  core::Result<cloud::InstanceTypes> instanceTypes(const api::karpenter::NodePool& pool) override;
  core::Result<std::vector<cloud::DriftCheck>> isDrifted(
      const api::karpenter::NodeClaim& claim) override;

 private:
  template <class Call>
  auto measured(const char* method, Call&& call);
  void recordInstanceTypes(const cloud::InstanceTypes& types);

  cloud::CloudProvider& inner_;
  const std::string controller_;
  const core::Clock& clock_;
  runtime::Family<runtime::Histogram>& duration_;
  runtime::Family<runtime::Counter>& errors_;
  runtime::Family<runtime::Gauge>& cpuCores_;
  runtime::Family<runtime::Gauge>& memoryBytes_;
  runtime::Family<runtime::Gauge>& offeringAvailable_;
  runtime::Family<runtime::Gauge>& offeringPrice_;
};

// The label upstream gives a failed call's error: its well-known type, or "".
std::string cloudErrorLabel(const core::Error& error);

}  // namespace nodewright::controllers::telemetry
