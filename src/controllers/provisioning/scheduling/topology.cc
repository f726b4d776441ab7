#include "controllers/provisioning/scheduling/topology.h"

#include <algorithm>
#include <limits>

namespace nodewright::controllers::provisioning::scheduling {

int Topology::key(const std::string& name) {
  auto [it, inserted] = keyIds_.emplace(name, static_cast<int>(keys_.size()));
  if (inserted) {
    keys_.push_back({});
    keys_.back().name = name;
  }
  return it->second;
}

int Topology::domain(int k, const std::string& name) {
  Key& key = keys_[k];
  auto [it, inserted] = key.ids.emplace(name, static_cast<int>(key.names.size()));
  if (inserted) {
    key.names.push_back(name);
  }
  return it->second;
}

void Topology::addUniverse(int k, const std::string& name) {
  int id = domain(k, name);
  auto& u = keys_[k].universe;
  auto it = std::lower_bound(u.begin(), u.end(), id);
  if (it == u.end() || *it != id) {
    u.insert(it, id);
  }
}

int Topology::group(const GroupSpec& spec) {
  std::string id = std::to_string(static_cast<int>(spec.type)) + "|" + spec.key + "|" +
                   std::to_string(spec.maxSkew) + "|" +
                   std::to_string(spec.minDomains.value_or(-1)) + "|" +
                   (spec.hasSelector ? api::formatSelector(spec.selector) : "<none>") + "|";
  for (const auto& ns : spec.namespaces) {
    id += ns + ",";
  }
  auto [it, inserted] = groupIds_.emplace(id, static_cast<int>(groups_.size()));
  if (inserted) {
    Group g;
    g.spec = spec;
    g.key = key(spec.key);
    groups_.push_back(std::move(g));
  }
  return it->second;
}

bool Topology::selects(int g, const std::string& ns, const api::Labels& labels) const {
  const GroupSpec& s = groups_[g].spec;
  if (!s.hasSelector) {
    return false;
  }
  if (!s.namespaces.empty() && !std::binary_search(s.namespaces.begin(), s.namespaces.end(), ns)) {
    return false;
  }
  return api::matches(s.selector, labels);
}

void Topology::count(int g, int d, int n) {
  Group& group = groups_[g];
  if (static_cast<int>(group.counts.size()) <= d) {
    group.counts.resize(d + 1, 0);
  }
  group.counts[d] += n;
  group.total += n;
}

void Topology::countOwner(int g, int d) {
  Group& group = groups_[g];
  if (static_cast<int>(group.owners.size()) <= d) {
    group.owners.resize(d + 1, 0);
  }
  ++group.owners[d];
}

int Topology::countOf(int g, int d) const {
  return at(groups_[g].counts, d);
}

Topology::Verdict Topology::checkOne(const Owned& o, const std::vector<int>& nodeDomains,
                                     std::vector<int>& out) const {
  const Group& g = groups_[o.group];
  const Key& key = keys_[g.key];
  const bool hostname = key.name == kHostname;
  const int self = o.selfSelecting ? 1 : 0;
  auto podAllows = [&](int d) { return o.podDomains.has(key.names[d]); };
  switch (g.spec.type) {
    case GroupType::Spread: {
      if (hostname) {
        for (int d : nodeDomains) {
          if (at(g.counts, d) + self <= g.spec.maxSkew) {
            out.push_back(d);
          }
        }
        return out.empty() ? Verdict::Never : Verdict::Ok;
      }
      int min = std::numeric_limits<int>::max();
      int32_t supported = 0;
      for (int d : key.universe) {
        if (podAllows(d)) {
          ++supported;
          min = std::min(min, at(g.counts, d));
        }
      }
      if (g.spec.minDomains && supported < *g.spec.minDomains) {
        min = 0;
      }
      // The least loaded admissible domain, as Karpenter's nextDomainTopologySpread picks.
      int best = -1;
      for (int d : nodeDomains) {
        bool inUniverse = std::binary_search(key.universe.begin(), key.universe.end(), d);
        int c = at(g.counts, d) + self;
        if (inUniverse && podAllows(d) && c - min <= g.spec.maxSkew &&
            (best < 0 || c < at(g.counts, best) + self)) {
          best = d;
        }
      }
      if (best < 0) {
        return Verdict::Retry;
      }
      out.push_back(best);
      return Verdict::Ok;
    }
    case GroupType::Affinity: {
      for (int d : nodeDomains) {
        if (at(g.counts, d) > 0 && (hostname || podAllows(d))) {
          out.push_back(d);
        }
      }
      if (out.empty() && g.total == 0 && o.selfSelecting) {
        // The first pod of a self-affine group goes anywhere and then pins the domain.
        for (int d : nodeDomains) {
          if (hostname || podAllows(d)) {
            out.push_back(d);
            break;
          }
        }
      }
      return out.empty() ? Verdict::Retry : Verdict::Ok;
    }
    case GroupType::AntiAffinity: {
      // Karpenter leaves a new claim every empty domain and then blocks them all, so zonal
      // anti-affinity launches one node per pass; pinning the first empty domain lets the
      // whole group schedule in one.
      for (int d : nodeDomains) {
        if (at(g.counts, d) == 0 && (hostname || podAllows(d))) {
          out.push_back(d);
          break;
        }
      }
      return out.empty() ? Verdict::Never : Verdict::Ok;
    }
  }
  return Verdict::Never;
}

}  // namespace nodewright::controllers::provisioning::scheduling
