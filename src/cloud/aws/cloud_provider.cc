#include "cloud/aws/cloud_provider.h"

#include <algorithm>

#include <fmt/format.h>

#include "cloud/candidates.h"
#include "cloud/well_known_labels.h"

namespace nodewright::cloud::aws {
namespace {

constexpr const char* kResourceEfa = "vpc.amazonaws.com/efa";

std::string notReadyMessage(const ResolvedNodeClass& resolved) {
  for (const auto& c : resolved.status.conditions) {
    if (c.type == "Ready") {
      return c.message;
    }
  }
  return "it has no Ready condition";
}

int efaRequested(const api::karpenter::NodeClaim& claim) {
  auto it = claim.spec.resources.requests.find(kResourceEfa);
  return it == claim.spec.resources.requests.end() ? 0 : static_cast<int>(it->second.value());
}

}  // namespace

AwsCloudProvider::AwsCloudProvider(AwsProviders providers, NodeClassLookup nodeClasses)
    : providers_(providers), nodeClasses_(std::move(nodeClasses)) {}

core::Result<AwsCloudProvider::NodeClassView> AwsCloudProvider::nodeClass(const std::string& name) {
  auto found = nodeClasses_(name);
  if (!found) {
    return core::fail(found.error().wrap("EC2NodeClass " + name));
  }
  auto resolved = providers_.resolver.resolve(*found);
  if (!resolved) {
    return core::fail(resolved.error().wrap("resolving EC2NodeClass " + name));
  }
  if (!resolved->ready()) {
    return core::fail(core::Error::invalid(
        fmt::format("EC2NodeClass {} is not ready: {}", name, notReadyMessage(*resolved))));
  }
  NodeClassView view{std::move(*found), std::move(*resolved), {}};
  for (const auto& subnet : view.resolved.subnets) {
    view.zones.push_back(subnet.availabilityZone);
  }
  std::sort(view.zones.begin(), view.zones.end());
  view.zones.erase(std::unique(view.zones.begin(), view.zones.end()), view.zones.end());
  return view;
}

core::Result<Machine> AwsCloudProvider::create(const api::karpenter::NodeClaim& claim) {
  const std::string& claimName = claim.metadata.name;
  auto view = nodeClass(claim.spec.nodeClassRef.name);
  if (!view) {
    return core::fail(view.error().wrap("launching " + claimName));
  }
  const auto& kubelet = effectiveKubelet(view->nodeClass.spec, claim.spec.kubelet);
  auto types = providers_.instanceTypes.listShared(view->nodeClass, kubelet, view->zones,
                                                   efaRequested(claim));
  if (!types) {
    return core::fail(types.error().wrap("launching " + claimName));
  }
  // Held until the launch is done: the candidates point into it.
  const std::shared_ptr<const InstanceTypes> shared = std::move(*types);
  CandidateTypes candidates = launchableTypes(shared->compatible, claim);
  if (candidates.types.empty()) {
    return core::fail(
        core::Error(core::Code::InsufficientCapacity,
                    fmt::format("launching {}: {} ({} more excluded by EC2NodeClass {})", claimName,
                                candidates.emptyReason, shared->excluded.size(),
                                view->nodeClass.metadata.name)));
  }
  auto instance =
      providers_.instances.create({claim, view->nodeClass, view->resolved, candidates.types});
  if (!instance) {
    return core::fail(instance.error());
  }
  const InstanceType* launched = nullptr;
  for (const InstanceType* type : candidates.types) {
    if (type->name == instance->instanceType) {
      launched = type;
      break;
    }
  }
  return machineOf(*instance, launched);
}

Machine AwsCloudProvider::machineOf(const sdk::Instance& instance, const InstanceType* type) const {
  Machine machine = toMachine(instance);
  if (type != nullptr) {
    for (const auto& [key, value] : type->labels) {
      machine.labels.emplace(key, value);
    }
    machine.capacity = type->capacity;
    machine.allocatable = type->allocatable();
  }
  return machine;
}

core::Result<Machine> AwsCloudProvider::get(std::string_view providerID) {
  auto id = parseProviderID(providerID);
  if (!id) {
    return core::fail(id.error());
  }
  auto instance = providers_.instances.get(*id);
  if (!instance) {
    return core::fail(instance.error());
  }
  return machineOf(*instance, nullptr);
}

core::Result<std::vector<Machine>> AwsCloudProvider::list() {
  auto instances = providers_.instances.list();
  if (!instances) {
    return core::fail(instances.error());
  }
  std::vector<Machine> out;
  out.reserve(instances->size());
  for (const auto& instance : *instances) {
    out.push_back(machineOf(instance, nullptr));
  }
  return out;
}

core::Status AwsCloudProvider::remove(std::string_view providerID) {
  auto id = parseProviderID(providerID);
  if (!id) {
    return core::fail(id.error());
  }
  return providers_.instances.remove(*id);
}

core::Result<InstanceTypes> AwsCloudProvider::instanceTypes(const api::karpenter::NodePool& pool) {
  const auto& tmpl = pool.spec.template_.spec;
  auto view = nodeClass(tmpl.nodeClassRef.name);
  if (!view) {
    return core::fail(view.error().wrap("NodePool " + pool.metadata.name));
  }
  const auto& kubelet = effectiveKubelet(view->nodeClass.spec, tmpl.kubelet);
  return providers_.instanceTypes.list(view->nodeClass, kubelet, view->zones);
}

core::Result<std::vector<Machine>> AwsCloudProvider::garbageCollect(
    const std::set<std::string>& known, core::TimePoint now, std::chrono::seconds grace) {
  auto collected = providers_.instances.garbageCollect(known, now, grace);
  if (!collected) {
    return core::fail(collected.error());
  }
  std::vector<Machine> out;
  for (const auto& instance : *collected) {
    out.push_back(machineOf(instance, nullptr));
  }
  return out;
}

}  // namespace nodewright::cloud::aws
