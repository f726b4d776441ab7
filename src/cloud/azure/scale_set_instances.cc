#include "cloud/azure/scale_set_instances.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "cloud/azure/api_versions.h"

namespace nodewright::cloud::azure {
namespace {

constexpr std::string_view kScaleSetType = "Microsoft.Compute/virtualMachineScaleSets";

// ARM's types are case-insensitive.
bool sameType(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

core::Error coreErrorOf(const lro::CallError& error) {
  using Kind = lro::CallError::Kind;
  const std::string message =
      error.code.empty() ? error.message : error.code + ": " + error.message;
  switch (error.kind) {
    case Kind::NotFound:
      return core::Error::notFound(message);
    case Kind::Conflict:
      return core::Error(core::Code::Conflict, message);
    case Kind::Throttled:
      return core::Error(core::Code::Throttled, message);
    case Kind::Invalid:
    case Kind::Auth:
    case Kind::BadToken:
      return core::Error::invalid(message);
    case Kind::Transient:
      break;
  }
  return core::Error::internal(message);
}

core::Result<std::vector<api::Json>> listScaleSetInstances(ArmClient& arm,
                                                           const std::string& scaleSetId,
                                                           std::chrono::milliseconds timeout) {
  const auto type = resourceTypeOf(scaleSetId);
  if (!type || !sameType(*type, kScaleSetType)) {
    return core::fail(core::Error::invalid("not a virtual machine scale set id: " + scaleSetId));
  }
  auto listed = arm.list(scaleSetId + "/virtualMachines", timeout);
  if (!listed) {
    return core::fail(coreErrorOf(listed.error()));
  }
  return std::move(*listed);
}

}  // namespace nodewright::cloud::azure
