#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/labels.h"
#include "controllers/provisioning/scheduling/requirements.h"

// Topology spread and pod (anti-)affinity, as Karpenter's Topology (pkg/controllers/
// provisioning/scheduling/topology.go) counts them: a group per distinct constraint, counting
// per domain the pods its selector matches, on existing nodes and as this pass places them.
// Domains are interned per key; kubernetes.io/hostname domains are the nodes and each new
// claim, and its minimum count is always zero (a new node can always be made).
namespace nodewright::controllers::provisioning::scheduling {

enum class GroupType { Spread, Affinity, AntiAffinity };

struct GroupSpec {
  GroupType type = GroupType::Spread;
  std::string key;
  std::vector<std::string> namespaces;  // sorted; empty means every namespace
  api::LabelSelector selector;
  bool hasSelector = false;  // an absent selector matches no pod
  int32_t maxSkew = 1;
  std::optional<int32_t> minDomains;
};

// Where a pod could go, per topology key: a node's single domain, or a claim's allowed set.
struct DomainSet {
  std::vector<int> ids;  // sorted
};

class Topology {
 public:
  static constexpr const char* kHostname = "kubernetes.io/hostname";

  int group(const GroupSpec& spec);
  const GroupSpec& spec(int g) const { return groups_[g].spec; }
  size_t groupCount() const { return groups_.size(); }
  int keyOf(int g) const { return groups_[g].key; }
  bool selects(int g, const std::string& ns, const api::Labels& labels) const;

  int key(const std::string& name);
  const std::string& keyName(int key) const { return keys_[key].name; }
  bool isHostname(int key) const { return keys_[key].name == kHostname; }
  int domain(int key, const std::string& name);
  const std::string& domainName(int key, int id) const { return keys_[key].names[id]; }
  // The domains pods may be spread over for a non-hostname key.
  void addUniverse(int key, const std::string& name);
  const std::vector<int>& universe(int key) const { return keys_[key].universe; }
  // Ids the next new hostname domains will get, without registering them.
  int nextDomain(int key) const { return static_cast<int>(keys_[key].names.size()); }

  // One constraint a pod owns, with the pod's own requirement on the key (nodeAffinityPolicy
  // Honor: only domains the pod could use count for the skew).
  struct Owned {
    int group = 0;
    bool selfSelecting = false;
    Requirement podDomains;
  };
  enum class Verdict { Ok, Retry, Never };
  struct Narrowing {
    int key = 0;
    std::vector<int> ids;
  };
  // Checks a pod against a node (domains per key from `domainsOf`). On Ok, `narrow` holds the
  // domains the node must be narrowed to. Never means this node can never take such a pod
  // (counts only grow, and a node's domains only narrow).
  template <class DomainsOf>
  Verdict check(const std::vector<Owned>& owned, const std::vector<int>& selectedByAnti,
                DomainsOf&& domainsOf, std::vector<Narrowing>& narrow) const;

  // Counts a placed pod: `selecting` are the groups whose selector matches it, `owned` its own.
  template <class DomainsOf>
  void record(const std::vector<int>& selecting, const std::vector<Owned>& owned,
              DomainsOf&& domainsOf);
  void count(int g, int domain, int n = 1);
  void countOwner(int g, int domain);
  int countOf(int g, int domain) const;

 private:
  struct Key {
    std::string name;
    std::vector<std::string> names;
    std::unordered_map<std::string, int> ids;
    std::vector<int> universe;
  };
  struct Group {
    GroupSpec spec;
    int key = 0;
    std::vector<int> counts;
    std::vector<int> owners;
    int total = 0;
  };
  static int at(const std::vector<int>& v, int i) {
    return i < static_cast<int>(v.size()) ? v[i] : 0;
  }
  Verdict checkOne(const Owned& o, const std::vector<int>& nodeDomains,
                   std::vector<int>& out) const;

  std::vector<Key> keys_;
  std::unordered_map<std::string, int> keyIds_;
  std::vector<Group> groups_;
  std::unordered_map<std::string, int> groupIds_;
};

template <class DomainsOf>
Topology::Verdict Topology::check(const std::vector<Owned>& owned,
                                  const std::vector<int>& selectedByAnti, DomainsOf&& domainsOf,
                                  std::vector<Narrowing>& narrow) const {
  narrow.clear();
  auto merge = [&](int key, std::vector<int>&& ids) {
    for (auto& n : narrow) {
      if (n.key == key) {
        std::erase_if(n.ids, [&](int d) { return !std::binary_search(ids.begin(), ids.end(), d); });
        return !n.ids.empty();
      }
    }
    narrow.push_back({key, std::move(ids)});
    return !narrow.back().ids.empty();
  };
  for (const Owned& o : owned) {
    const Group& g = groups_[o.group];
    const std::vector<int>& domains = domainsOf(g.key);
    // A node without the key's label is in no domain, so anti-affinity cannot exclude it (as
    // kube-scheduler decides).
    if (domains.empty() && g.spec.type == GroupType::AntiAffinity) {
      continue;
    }
    std::vector<int> out;
    Verdict v = checkOne(o, domains, out);
    if (v != Verdict::Ok) {
      return v;
    }
    if (!merge(g.key, std::move(out))) {
      return Verdict::Retry;
    }
  }
  // Pods already placed with anti-affinity keep the pods they select out of their domains.
  for (int gi : selectedByAnti) {
    const Group& g = groups_[gi];
    const std::vector<int>& nodeDomains = domainsOf(g.key);
    if (nodeDomains.empty()) {
      continue;
    }
    std::vector<int> out;
    for (int d : nodeDomains) {
      if (at(g.owners, d) == 0) {
        out.push_back(d);
      }
    }
    if (out.empty() || !merge(g.key, std::move(out))) {
      return Verdict::Never;
    }
  }
  return Verdict::Ok;
}

template <class DomainsOf>
void Topology::record(const std::vector<int>& selecting, const std::vector<Owned>& owned,
                      DomainsOf&& domainsOf) {
  for (int gi : selecting) {
    const std::vector<int>& domains = domainsOf(groups_[gi].key);
    // Anti-affinity blocks every domain the pod may land in; spread and affinity can only
    // count a domain once it is known.
    if (groups_[gi].spec.type == GroupType::AntiAffinity || domains.size() == 1) {
      for (int d : domains) {
        count(gi, d);
      }
    }
  }
  for (const Owned& o : owned) {
    if (groups_[o.group].spec.type == GroupType::AntiAffinity) {
      for (int d : domainsOf(groups_[o.group].key)) {
        countOwner(o.group, d);
      }
    }
  }
}

}  // namespace nodewright::controllers::provisioning::scheduling
