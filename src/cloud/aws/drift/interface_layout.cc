#include "cloud/aws/drift/interface_layout.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace nodewright::cloud::aws::drift {
namespace {

using Interface = NodeClassDriftContext::Interface;

std::string typeOf(const std::string& reported) {
  return reported.empty() ? std::string("interface") : reported;
}

std::string keyPath(const Interface& spec) {
  return fmt::format("spec.networkInterfaces[networkCardIndex={},deviceIndex={}]",
                     spec.networkCardIndex, spec.deviceIndex);
}

const InterfaceFacts* liveAt(const InstanceFacts& instance, const Interface& spec) {
  for (const InterfaceFacts& ni : instance.networkInterfaces) {
    if (ni.networkCardIndex == spec.networkCardIndex && ni.deviceIndex == spec.deviceIndex) {
      return &ni;
    }
  }
  return nullptr;
}

}  // namespace

DriftCheck interfaceLayoutDrift(const NodeClassDriftContext& context,
                                const InstanceFacts& instance) {
  DriftCheck check;
  check.name = "NetworkInterfaces";
  if (instance.networkInterfaces.empty()) {
    check.detail = "EC2 reported no network interfaces for the instance: not compared";
    return check;
  }
  std::vector<const Interface*> wanted;
  for (const Interface& spec : context.interfaces) {
    wanted.push_back(&spec);
  }
  std::stable_sort(wanted.begin(), wanted.end(), [](const Interface* a, const Interface* b) {
    return std::tie(a->deviceIndex, a->networkCardIndex) <
           std::tie(b->deviceIndex, b->networkCardIndex);
  });
  std::vector<std::string> notes;
  for (const Interface* spec : wanted) {
    const InterfaceFacts* live = liveAt(instance, *spec);
    api::FieldDiff diff;
    if (live == nullptr) {
      diff.path = keyPath(*spec);
      diff.to = api::Json{{"networkCardIndex", spec->networkCardIndex},
                          {"deviceIndex", spec->deviceIndex},
                          {"interfaceType", spec->interfaceType}};
      notes.push_back(fmt::format("no {} on network card {}, device {}", spec->interfaceType,
                                  spec->networkCardIndex, spec->deviceIndex));
    } else if (typeOf(live->interfaceType) != spec->interfaceType) {
      diff.path = keyPath(*spec) + ".interfaceType";
      diff.from = api::Json(typeOf(live->interfaceType));
      diff.to = api::Json(spec->interfaceType);
      notes.push_back(fmt::format("network card {}, device {} is {}, not {}",
                                  spec->networkCardIndex, spec->deviceIndex,
                                  typeOf(live->interfaceType), spec->interfaceType));
    } else {
      continue;
    }
    check.changes.push_back(std::move(diff));
  }
  if (check.changes.empty()) {
    check.detail = fmt::format("the instance has the {} listed interface{} (card, device, type)",
                               wanted.size(), wanted.size() == 1 ? "" : "s");
    return check;
  }
  check.drifted = true;
  check.reason = "NetworkInterfaceDrifted";
  check.detail = fmt::format("the instance's interfaces no longer contain the node class's: {}",
                             fmt::join(notes, "; "));
  return check;
}

}  // namespace nodewright::cloud::aws::drift
