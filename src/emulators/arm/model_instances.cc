// A scale set's instances: sku.capacity of them, numbered by the scale set and never renumbered.
#include <algorithm>
#include <charconv>

#include "emulators/arm/model.h"

namespace nodewright::emulators::arm {
namespace {

using api::Json;

std::string str(const Json& o, const char* key) {
  auto it = o.is_object() ? o.find(key) : o.end();
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string base36(int64_t n, size_t width) {
  std::string out;
  do {
    out.insert(out.begin(), "0123456789abcdefghijklmnopqrstuvwxyz"[n % 36]);
    n /= 36;
  } while (n > 0);
  while (out.size() < width) {
    out.insert(out.begin(), '0');
  }
  return out;
}

// The instance number ends the instance's id (".../virtualMachines/7"), which no PUT changes;
// the body's instanceId is what a client sent. -1 when it is not a number.
int64_t instanceNumber(const Resource& r) {
  const std::string_view id = r.id;
  const std::string_view tail = id.substr(id.rfind('/') + 1);
  int64_t n = -1;
  auto [end, ec] = std::from_chars(tail.data(), tail.data() + tail.size(), n);
  return ec == std::errc() && end == tail.data() + tail.size() ? n : -1;
}

}  // namespace

ArmModel::InstancePlan ArmModel::planInstances(Prepared& scaleSet) {
  InstancePlan plan;
  ArmResource& set = *scaleSet.resource;
  const Json* capacity = capacityOf(set.body);
  if (capacity == nullptr) {
    return plan;
  }
  const ResourceType* instanceType = findType(scaleSet.path.type->name + "/virtualMachines");
  const std::string key = scaleSet.path.key();
  std::vector<Resource> current;
  for (Resource& r : childrenOf(key)) {
    if (r.type == instanceType->key() && r.state != "Deleting") {
      current.push_back(std::move(r));
    }
  }
  std::sort(current.begin(), current.end(), [](const Resource& a, const Resource& b) {
    return instanceNumber(a) < instanceNumber(b);
  });
  for (const Resource& r : current) {
    set.nextInstance = std::max(set.nextInstance, instanceNumber(r) + 1);
  }
  const int64_t want = capacity->get<int64_t>();
  // Scaling in removes the newest instances, as a scale set's default policy does.
  while (static_cast<int64_t>(current.size()) > want) {
    auto path = parseResourcePath(data(current.back()).id);
    if (path) {
      Prepared gone;
      gone.path = std::move(*path);
      gone.resource = std::make_shared<ArmResource>(data(current.back()));
      gone.existing = std::move(current.back());
      gone.remove = true;
      plan.removed.push_back(std::move(gone));
    }
    current.pop_back();
  }
  const Json& props = set.body["properties"];
  const Json profile =
      props.contains("virtualMachineProfile") ? props["virtualMachineProfile"] : Json::object();
  const std::string prefix = profile.contains("osProfile")
                                 ? str(profile["osProfile"], "computerNamePrefix")
                                 : std::string();
  const std::string setName = str(set.body, "name");
  const Json sku = set.body.contains("sku") ? set.body["sku"] : Json::object();
  for (int64_t n = static_cast<int64_t>(current.size()); n < want; ++n) {
    const int64_t number = set.nextInstance++;
    const std::string instanceId = std::to_string(number);
    Prepared item;
    item.path.type = instanceType;
    item.path.subscription = scaleSet.path.subscription;
    item.path.resourceGroup = scaleSet.path.resourceGroup;
    item.path.name = instanceId;
    item.path.parentId = set.id;
    item.path.id = set.id + "/virtualMachines/" + instanceId;
    auto r = std::make_shared<ArmResource>();
    r->id = item.path.id;
    r->type = instanceType;
    r->parentKey = key;
    r->location = set.location;
    r->operationId = set.operationId;
    Json osProfile = profile.contains("osProfile") ? profile["osProfile"] : Json::object();
    osProfile.erase("computerNamePrefix");
    osProfile["computerName"] = (prefix.empty() ? setName : prefix) + base36(number, 6);
    Json instanceProps = {{"latestModelApplied", true},
                          {"vmId", newUuid()},
                          {"hardwareProfile", {{"vmSize", str(sku, "name")}}},
                          {"osProfile", std::move(osProfile)}};
    if (profile.contains("storageProfile")) {
      instanceProps["storageProfile"] = profile["storageProfile"];
    }
    if (profile.contains("networkProfile")) {
      instanceProps["networkProfileConfiguration"] = profile["networkProfile"];
    }
    r->body = {{"id", r->id},
               {"name", setName + "_" + instanceId},
               {"type", instanceType->name},
               {"instanceId", instanceId},
               {"location", r->location},
               {"sku", {{"name", str(sku, "name")}, {"tier", str(sku, "tier")}}},
               {"properties", std::move(instanceProps)}};
    item.resource = std::move(r);
    plan.added.push_back(std::move(item));
  }
  return plan;
}

void ArmModel::applyInstances(InstancePlan& plan, const Transition& next,
                              const RequestContext& ctx) {
  // A removed instance is deleted as a DELETE of it would be: its own operation, so a client
  // that deletes or polls it follows a delete, not the create it came from.
  RequestContext own = ctx;
  own.failure.reset();
  for (Prepared& item : plan.removed) {
    item.resource->operationId = startOperation(item.path, *item.resource, "DELETE", next.at, own);
    (void)engine_.store().update(item.existing->type, item.existing->id,
                                 [&](Resource& r) { r.attributes = item.resource; });
    (void)engine_.store().transition(item.existing->type, item.existing->id, "Deleting",
                                     deletion(next.at, false));
  }
  for (const Prepared& item : plan.added) {
    store(item, "Creating", next);
  }
}

}  // namespace nodewright::emulators::arm
