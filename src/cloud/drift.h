#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/codec.h"
#include "api/reflect/diff.h"

// One drift check of a NodeClaim (seed 002). The core checks its NodePool (static fields by
// hash, then requirements); the cloud checks its node class (static fields by hash, then what
// the selectors resolve to now). The Drifted condition names the first check that fails;
// `nodewright drift explain` lists them all.
namespace nodewright::cloud {

struct DriftCheck {
  // "NodePool", "Requirements", "NodeClass", "AMI", "Subnet", "SecurityGroups",
  // "NetworkInterfaces[1].Subnet", ...
  std::string name;
  bool drifted = false;
  // The condition's reason when drifted: NodePoolDrifted, RequirementsDrifted,
  // NodeClassDrifted, AMIDrifted, SubnetDrifted, SecurityGroupDrifted, NetworkInterfaceDrifted.
  std::string reason;
  // The fields that differ, with the value the node was launched with and the value now.
  std::vector<api::reflect::FieldDiff> changes;
  // Could not be compared (a stamp of another hash version, waiting to be re-stamped): neither
  // drift nor its absence. A Drifted condition found earlier stays.
  bool undetermined = false;
  // What was compared, in words: why it passed or what changed when no field can be named
  // ("hash version nw0 -> nw1: re-stamped, not drift", "subnet-1 is not among subnet-2,
  // subnet-3").
  std::string detail;
};

// "spec.userData: \"a\" -> \"b\"; spec.tags[team]: <absent> -> \"x\"", or the detail.
std::string describe(const DriftCheck& check);

// The first drifted check, or nullptr.
const DriftCheck* firstDrift(const std::vector<DriftCheck>& checks);

// The fields a stamped snapshot differs in from one current spec. Claims launched from the same
// spec carry the same snapshot, so a fleet drifting after one change is diffed once, not once per
// claim. Valid for one current spec only: the owner (a per-spec check context) drops it with the
// spec. Thread-safe; holds at most kCapacity snapshots.
class DiffMemo {
 public:
  static constexpr size_t kCapacity = 64;
  std::optional<std::vector<api::reflect::FieldDiff>> find(const std::string& snapshot) const;
  void insert(const std::string& snapshot, const std::vector<api::reflect::FieldDiff>& diff);

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::vector<api::reflect::FieldDiff>> diffs_;
};

// Where a claim keeps one stamped hash (api/karpenter/hashing.h). Strings, not literals: a map
// lookup by literal would build a key string per claim.
struct StampedHash {
  std::string hashKey;
  std::string versionKey;
  std::string snapshotKey;
};

// A static-fields check by hash, shared by the NodePool and node class checks. A claim stamped
// under another version than `version`, or not stamped, passes: it is re-stamped, never drifted.
// When the hashes differ, the stamped snapshot is decoded and the fields that changed against
// `current` are named under `root` (remembered in `memo` when given).
template <class T>
DriftCheck hashDrift(std::string name, std::string reason,
                     const std::map<std::string, std::string>& annotations, const StampedHash& keys,
                     const std::string& currentHash, const T& current, std::string_view root,
                     const std::string& version, DiffMemo* memo = nullptr) {
  DriftCheck check;
  check.name = std::move(name);
  auto stamped = annotations.find(keys.hashKey);
  if (stamped == annotations.end()) {
    check.detail = "not stamped with a hash: not compared";
    return check;
  }
  // The common case first, with one lookup: an equal hash passes under any version.
  if (stamped->second == currentHash) {
    check.detail = "unchanged";
    return check;
  }
  auto stampedVersion = annotations.find(keys.versionKey);
  if (stampedVersion == annotations.end() || stampedVersion->second != version) {
    check.undetermined = true;
    check.detail =
        "stamped under hash version " +
        (stampedVersion == annotations.end() ? std::string("<none>") : stampedVersion->second) +
        ", running " + version + ": re-stamped, not drift";
    return check;
  }
  check.drifted = true;
  check.reason = std::move(reason);
  check.detail = "hash " + stamped->second + " -> " + currentHash;
  auto snapshot = annotations.find(keys.snapshotKey);
  if (snapshot == annotations.end()) {
    check.detail += " (launched without a field snapshot)";
    return check;
  }
  if (memo != nullptr) {
    if (auto known = memo->find(snapshot->second)) {
      check.changes = std::move(*known);
      return check;
    }
  }
  api::Json parsed = api::Json::parse(snapshot->second, nullptr, false);
  T launched;
  if (parsed.is_discarded() ||
      !api::decodeJson(parsed, launched, api::DecodeOptions{false}).empty()) {
    check.detail += " (field snapshot unreadable)";
    return check;
  }
  check.changes = api::staticDiff(launched, current, root);
  if (memo != nullptr) {
    memo->insert(snapshot->second, check.changes);
  }
  return check;
}

}  // namespace nodewright::cloud
