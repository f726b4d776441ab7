#include "cloud/aws/drift/network_drift.h"

#include <algorithm>
#include <array>
#include <string>

#include <fmt/format.h>

namespace nodewright::cloud::aws::drift {
namespace {

using Interface = NodeClassDriftContext::Interface;

// One interface of the instance, pointing into its facts.
struct Slot {
  int card = 0;
  int device = 0;
  const std::string* subnet = nullptr;
  const std::vector<std::string>* groups = nullptr;
};

// The instance's interfaces; the primary alone, from the instance's fields, when EC2 reported
// none. Held on the stack for the usual few.
class Slots {
 public:
  explicit Slots(const InstanceFacts& instance) {
    if (instance.networkInterfaces.empty()) {
      add({0, 0, &instance.subnetId, &instance.securityGroupIds});
      return;
    }
    for (const InterfaceFacts& ni : instance.networkInterfaces) {
      add({ni.networkCardIndex, ni.deviceIndex, &ni.subnetId, &ni.securityGroupIds});
    }
  }
  const Slot* begin() const { return spilled_.empty() ? inline_.data() : spilled_.data(); }
  const Slot* end() const { return begin() + size_; }

 private:
  void add(const Slot& slot) {
    if (size_ < inline_.size()) {
      inline_[size_++] = slot;
      return;
    }
    if (spilled_.empty()) {
      spilled_.assign(inline_.begin(), inline_.end());
    }
    spilled_.push_back(slot);
    ++size_;
  }

  std::array<Slot, 4> inline_{};
  std::vector<Slot> spilled_;
  size_t size_ = 0;
};

const Interface* specFor(const NodeClassDriftContext& context, int card, int device) {
  for (const Interface& ni : context.interfaces) {
    if (ni.networkCardIndex == card && ni.deviceIndex == device) {
      return &ni;
    }
  }
  return nullptr;
}

const Slot* slotAt(const Slots& slots, int card, int device) {
  for (const Slot& slot : slots) {
    if (slot.card == card && slot.device == device) {
      return &slot;
    }
  }
  return nullptr;
}

// " (network card 0, device 1)" for any interface but the primary.
std::string where(const Slot& slot) {
  if (slot.card == 0 && slot.device == 0) {
    return "";
  }
  return fmt::format(" (network card {}, device {})", slot.card, slot.device);
}

std::string joined(const std::vector<std::string>& ids) {
  return ids.empty() ? std::string("none") : fmt::format("{}", fmt::join(ids, ", "));
}

// Exactly the resolved groups, as a set.
bool sameGroups(const std::vector<std::string>& groups, const IdSet& resolved) {
  size_t distinct = 0;
  for (size_t i = 0; i < groups.size(); ++i) {
    if (!resolved.contains(groups[i])) {
      return false;
    }
    const auto before = groups.begin() + static_cast<std::ptrdiff_t>(i);
    distinct += std::find(groups.begin(), before, groups[i]) == before ? 1 : 0;
  }
  return distinct == resolved.ids.size();
}

void subnetDrifted(DriftCheck& check, const Slot& slot, const IdSet& resolved, std::string path) {
  check.drifted = true;
  check.reason = "SubnetDrifted";
  check.detail = fmt::format("{}{} is not among the resolved subnets {}", *slot.subnet, where(slot),
                             joined(resolved.sorted));
  api::FieldDiff diff;
  diff.path = std::move(path);
  diff.from = api::Json(*slot.subnet);
  diff.to = api::Json(resolved.sorted);
  check.changes.push_back(std::move(diff));
}

void groupsDrifted(DriftCheck& check, const Slot& slot, const IdSet& resolved, std::string path) {
  std::vector<std::string> have = *slot.groups;
  std::sort(have.begin(), have.end());
  have.erase(std::unique(have.begin(), have.end()), have.end());
  std::vector<std::string> notes;
  for (const std::string& id : have) {
    if (!resolved.contains(id)) {
      notes.push_back(id + " extra");
    }
  }
  for (const std::string& id : resolved.sorted) {
    if (!std::binary_search(have.begin(), have.end(), id)) {
      notes.push_back(id + " missing");
    }
  }
  check.drifted = true;
  check.reason = "SecurityGroupDrifted";
  check.detail = fmt::format("security groups {}{} are not the resolved {}: {}", joined(have),
                             where(slot), joined(resolved.sorted), joined(notes));
  api::FieldDiff diff;
  diff.path = std::move(path);
  diff.from = api::Json(have);
  diff.to = api::Json(resolved.sorted);
  check.changes.push_back(std::move(diff));
}

// The interfaces that launch with the node class's own subnets (`groups` false) or security
// groups (true): those the spec gives no selectors of their own.
template <class Fn>
void forClassInterfaces(const NodeClassDriftContext& context, const Slots& slots, bool groups,
                        Fn&& fn) {
  for (const Slot& slot : slots) {
    const Interface* spec = specFor(context, slot.card, slot.device);
    if (spec != nullptr && (groups ? spec->ownSecurityGroups : spec->ownSubnets)) {
      continue;
    }
    if (!fn(slot)) {
      return;
    }
  }
}

DriftCheck classSubnets(const NodeClassDriftContext& context, const Slots& slots) {
  DriftCheck check;
  check.name = "Subnet";
  if (context.subnets.empty()) {
    check.detail = "status.subnets is empty (not resolved yet): not compared";
    return check;
  }
  const std::string* first = nullptr;  // the first subnet checked; the others are usually it
  std::vector<std::string> others;
  forClassInterfaces(context, slots, false, [&](const Slot& slot) {
    if (slot.subnet->empty()) {
      return true;
    }
    if (!context.subnets.contains(*slot.subnet)) {
      subnetDrifted(check, slot, context.subnets, "status.subnets");
      return false;
    }
    if (first == nullptr) {
      first = slot.subnet;
    } else if (*slot.subnet != *first &&
               std::find(others.begin(), others.end(), *slot.subnet) == others.end()) {
      others.push_back(*slot.subnet);
    }
    return true;
  });
  if (check.drifted) {
    return check;
  }
  if (first == nullptr) {
    check.detail =
        "no interface of the instance with a known subnet takes the node class's "
        "subnets: not compared";
  } else if (others.empty()) {
    check.detail = *first + context.subnetsPass;
  } else {
    others.insert(others.begin(), *first);
    check.detail = fmt::format("{} are among the {} resolved subnets", joined(others),
                               context.subnets.ids.size());
  }
  return check;
}

DriftCheck classGroups(const NodeClassDriftContext& context, const Slots& slots) {
  DriftCheck check;
  check.name = "SecurityGroups";
  if (context.securityGroups.empty()) {
    check.detail = "status.securityGroups is empty (not resolved yet): not compared";
    return check;
  }
  size_t checked = 0;
  forClassInterfaces(context, slots, true, [&](const Slot& slot) {
    if (slot.groups->empty()) {
      return true;
    }
    if (!sameGroups(*slot.groups, context.securityGroups)) {
      groupsDrifted(check, slot, context.securityGroups, "status.securityGroups");
      return false;
    }
    ++checked;
    return true;
  });
  if (check.drifted) {
    return check;
  }
  if (checked == 0) {
    check.detail =
        "no interface of the instance with known security groups takes the node "
        "class's: not compared";
  } else {
    check.detail = context.groupsPass;
  }
  return check;
}

// Why an interface's own check cannot compare, or "" when it can.
std::string notCompared(const Interface& spec, const Slot* slot, bool groups) {
  if (!spec.resolved) {
    return fmt::format(
        "status.networkInterfaces has no entry for network card {}, device {} (not resolved "
        "yet): not compared",
        spec.networkCardIndex, spec.deviceIndex);
  }
  if ((groups ? spec.securityGroups : spec.subnets).empty()) {
    return fmt::format("no {} resolved for it: not compared",
                       groups ? "security groups" : "subnets");
  }
  if (slot == nullptr) {
    return fmt::format("the instance has no interface on network card {}, device {}: not compared",
                       spec.networkCardIndex, spec.deviceIndex);
  }
  if (groups ? slot->groups->empty() : slot->subnet->empty()) {
    return fmt::format("the instance reports no {} for it: not compared",
                       groups ? "security groups" : "subnet");
  }
  return "";
}

void interfaceChecks(const Interface& spec, const Slots& slots, std::vector<DriftCheck>& checks) {
  const Slot* slot = slotAt(slots, spec.networkCardIndex, spec.deviceIndex);
  // Only a drifted check names the status entry.
  auto status = [&spec](const char* list) {
    return fmt::format("status.networkInterfaces[networkCardIndex={},deviceIndex={}].{}",
                       spec.networkCardIndex, spec.deviceIndex, list);
  };
  if (spec.ownSubnets) {
    DriftCheck check;
    check.name = fmt::format("NetworkInterfaces[{}].Subnet", spec.index);
    check.detail = notCompared(spec, slot, false);
    if (check.detail.empty()) {
      if (spec.subnets.contains(*slot->subnet)) {
        check.detail = fmt::format("{} is among the {} subnets resolved for it", *slot->subnet,
                                   spec.subnets.ids.size());
      } else {
        subnetDrifted(check, *slot, spec.subnets, status("subnets"));
      }
    }
    checks.push_back(std::move(check));
  }
  if (spec.ownSecurityGroups) {
    DriftCheck check;
    check.name = fmt::format("NetworkInterfaces[{}].SecurityGroups", spec.index);
    check.detail = notCompared(spec, slot, true);
    if (check.detail.empty()) {
      if (sameGroups(*slot->groups, spec.securityGroups)) {
        check.detail =
            fmt::format("exactly the {} resolved for it", joined(spec.securityGroups.sorted));
      } else {
        groupsDrifted(check, *slot, spec.securityGroups, status("securityGroups"));
      }
    }
    checks.push_back(std::move(check));
  }
}

}  // namespace

void appendNetworkDrift(const NodeClassDriftContext& context, const InstanceFacts& instance,
                        std::vector<DriftCheck>& checks) {
  const Slots slots(instance);
  checks.push_back(classSubnets(context, slots));
  checks.push_back(classGroups(context, slots));
  for (const Interface& spec : context.interfaces) {
    interfaceChecks(spec, slots, checks);
  }
}

}  // namespace nodewright::cloud::aws::drift
