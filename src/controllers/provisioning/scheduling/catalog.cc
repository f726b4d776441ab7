#include "controllers/provisioning/scheduling/catalog.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "cloud/well_known_labels.h"

namespace nodewright::controllers::provisioning::scheduling {
namespace {

size_t indexOf(std::vector<std::string>& list, const std::string& value) {
  auto it = std::find(list.begin(), list.end(), value);
  if (it == list.end()) {
    list.push_back(value);
    return list.size() - 1;
  }
  return static_cast<size_t>(it - list.begin());
}

}  // namespace

PoolCatalog::PoolCatalog(const api::karpenter::NodePool& pool,
                         const std::vector<cloud::InstanceType>& types,
                         const cloud::ResourceList& inUse, ResourceIndex& resources, ReqTable& reqs)
    : pool_(&pool),
      types_(&types),
      reqs_(reqs),
      name_(pool.metadata.name),
      weight_(pool.spec.weight.value_or(0)) {
  const auto& tmpl = pool.spec.template_;
  Requirements r = Requirements::fromApi(tmpl.spec.requirements);
  for (const auto& [key, value] : tmpl.metadata.labels) {
    r.add(key, Requirement::in({value}));
  }
  r.add(cloud::labels::kNodePool, Requirement::in({name_}));
  requirements_ = reqs.intern(r);
  for (const auto& t : tmpl.spec.taints) {
    api::corev1::Taint taint;
    taint.key = t.key;
    taint.value = t.value;
    taint.effect = t.effect;
    taints_.push_back(taint);
  }

  const size_t n = types.size();
  const size_t slots = resources.size();
  for (const auto& type : types) {
    alloc_.push_back(resources.vec(type.allocatable()));
    capacity_.push_back(resources.vec(type.capacity));
    alloc_.back().resize(slots, 0);
    capacity_.back().resize(slots, 0);
  }
  maxAlloc_.assign(slots, 0);
  sorted_.resize(slots);
  suffix_.resize(slots);
  order_.resize(slots);
  for (size_t s = 0; s < slots; ++s) {
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return alloc_[a][s] < alloc_[b][s]; });
    Bits acc(n);
    suffix_[s].assign(n + 1, Bits(n));
    sorted_[s].resize(n);
    for (size_t k = n; k-- > 0;) {
      acc.set(order[k]);
      suffix_[s][k] = acc;
      sorted_[s][k] = alloc_[order[k]][s];
    }
    if (n) {
      maxAlloc_[s] = sorted_[s].back();
    }
    order_[s] = std::move(order);
  }

  for (size_t t = 0; t < n; ++t) {
    for (const auto& [key, value] : types[t].labels) {
      KeyIndex& k = keys_[key];
      k.has.grow(n);
      k.has.set(t);
      auto [it, inserted] = k.values.emplace(value, Bits(n));
      it->second.set(t);
    }
    for (const auto& o : types[t].offerings) {
      indexOf(zones_, o.zone);
      indexOf(capacityTypes_, o.capacityType);
    }
  }
  const size_t offers = zones_.size() * capacityTypes_.size();
  offers_.assign(offers, Bits(n));
  price_.assign(n * offers, std::numeric_limits<double>::infinity());
  for (size_t t = 0; t < n; ++t) {
    for (const auto& o : types[t].offerings) {
      if (!o.available) {
        continue;
      }
      size_t i =
          indexOf(zones_, o.zone) * capacityTypes_.size() + indexOf(capacityTypes_, o.capacityType);
      offers_[i].set(t);
      price_[t * offers + i] = std::min(price_[t * offers + i], o.pricePerHour);
    }
  }

  for (const auto& [name, limit] : pool.spec.limits) {
    auto used = inUse.find(name);
    int64_t left = limit.milliValue() - (used == inUse.end() ? 0 : used->second.milliValue());
    limits_.emplace_back(resources.slot(name), left);
  }
}

void PoolCatalog::keepFitting(Bits& mask, const Vec& need) const {
  for (size_t s = 0; s < need.size(); ++s) {
    if (need[s] <= 0) {
      continue;
    }
    if (s >= sorted_.size()) {
      mask = Bits(mask.size());
      return;
    }
    const auto& v = sorted_[s];
    size_t k = static_cast<size_t>(std::lower_bound(v.begin(), v.end(), need[s]) - v.begin());
    mask &= suffix_[s][k];
  }
}

Vec PoolCatalog::maxWithin(const Bits& mask) const {
  Vec out(sorted_.size(), 0);
  for (size_t s = 0; s < sorted_.size(); ++s) {
    // Types rarely leave a claim from the top, so this stops after a step or two.
    for (size_t k = order_[s].size(); k-- > 0;) {
      if (mask.test(order_[s][k])) {
        out[s] = sorted_[s][k];
        break;
      }
    }
  }
  return out;
}

const std::vector<size_t>& PoolCatalog::byPrice(int id) {
  auto it = byPrice_.find(id);
  if (it != byPrice_.end()) {
    return it->second;
  }
  std::vector<std::pair<double, size_t>> priced;
  for (size_t t = 0; t < typeCount(); ++t) {
    priced.emplace_back(price(t, id), t);
  }
  std::sort(priced.begin(), priced.end(), [&](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : type(a.second).name < type(b.second).name;
  });
  std::vector<size_t> out;
  for (const auto& [p, t] : priced) {
    out.push_back(t);
  }
  return byPrice_.emplace(id, std::move(out)).first->second;
}

Bits PoolCatalog::offeringMask(const Requirements& reqs) const {
  const Requirement* zone = reqs.get(cloud::labels::kZone);
  const Requirement* ct = reqs.get(cloud::labels::kCapacityType);
  Bits out(typeCount());
  for (size_t z = 0; z < zones_.size(); ++z) {
    if (zone && !zone->has(zones_[z])) {
      continue;
    }
    for (size_t c = 0; c < capacityTypes_.size(); ++c) {
      if (!ct || ct->has(capacityTypes_[c])) {
        out |= offers_[z * capacityTypes_.size() + c];
      }
    }
  }
  return out;
}

const Bits& PoolCatalog::typesFor(int id) {
  auto it = typesByReq_.find(id);
  if (it != typesByReq_.end()) {
    return it->second;
  }
  const Requirements& reqs = reqs_.get(id);
  Bits out = reqs_.conflicted(id) ? Bits(typeCount()) : offeringMask(reqs);
  for (const auto& [key, r] : reqs.entries()) {
    if (!cloud::labels::definedByInstanceType(key) || r.unrestricted()) {
      continue;
    }
    if (key == cloud::labels::kInstanceTenancy) {
      const auto& tenancy = r;  // clang 14 cannot capture a structured binding (P1091)
      if (!cloud::labels::tenancyAllowed([&](std::string_view t) { return tenancy.has(t); })) {
        out = Bits(typeCount());
      }
      continue;
    }
    Bits ok(typeCount());
    auto k = keys_.find(key);
    if (k != keys_.end()) {
      for (const auto& [value, types] : k->second.values) {
        if (r.has(value)) {
          ok |= types;
        }
      }
      if (r.allowsAbsent()) {
        ok |= ~k->second.has;
      }
    } else if (r.allowsAbsent()) {
      ok = Bits(typeCount(), true);
    }
    out &= ok;
  }
  return typesByReq_.emplace(id, std::move(out)).first->second;
}

double PoolCatalog::price(size_t t, int id) {
  const Requirements& reqs = reqs_.get(id);
  const Requirement* zone = reqs.get(cloud::labels::kZone);
  const Requirement* ct = reqs.get(cloud::labels::kCapacityType);
  const size_t offers = zones_.size() * capacityTypes_.size();
  double best = std::numeric_limits<double>::infinity();
  for (size_t z = 0; z < zones_.size(); ++z) {
    for (size_t c = 0; c < capacityTypes_.size(); ++c) {
      if ((!zone || zone->has(zones_[z])) && (!ct || ct->has(capacityTypes_[c]))) {
        best = std::min(best, price_[t * offers + z * capacityTypes_.size() + c]);
      }
    }
  }
  return best;
}

std::vector<std::string> PoolCatalog::domains(const std::string& key) {
  const Requirement* r = reqs_.get(requirements_).get(key);
  std::set<std::string> out;
  if (key == cloud::labels::kZone || key == cloud::labels::kCapacityType) {
    const auto& list = key == cloud::labels::kZone ? zones_ : capacityTypes_;
    for (size_t i = 0; i < list.size(); ++i) {
      bool available = false;
      for (size_t j = 0; j < offers_.size(); ++j) {
        size_t idx =
            key == cloud::labels::kZone ? j / capacityTypes_.size() : j % capacityTypes_.size();
        available = available || (idx == i && offers_[j].any());
      }
      if (available && (!r || r->has(list[i]))) {
        out.insert(list[i]);
      }
    }
  } else if (auto k = keys_.find(key); k != keys_.end()) {
    for (const auto& [value, types] : k->second.values) {
      if (!r || r->has(value)) {
        out.insert(value);
      }
    }
  } else if (r && r->finiteValues()) {
    out.insert(r->finiteValues()->begin(), r->finiteValues()->end());
  }
  return {out.begin(), out.end()};
}

size_t PoolCatalog::distinctValues(const std::string& key, const Bits& mask, int id) {
  std::set<std::string> seen;
  if (key == cloud::labels::kZone || key == cloud::labels::kCapacityType) {
    const Requirements& reqs = reqs_.get(id);
    const Requirement* zone = reqs.get(cloud::labels::kZone);
    const Requirement* ct = reqs.get(cloud::labels::kCapacityType);
    for (size_t z = 0; z < zones_.size(); ++z) {
      for (size_t c = 0; c < capacityTypes_.size(); ++c) {
        Bits both = offers_[z * capacityTypes_.size() + c];
        both &= mask;
        if ((!zone || zone->has(zones_[z])) && (!ct || ct->has(capacityTypes_[c])) && both.any()) {
          seen.insert(key == cloud::labels::kZone ? zones_[z] : capacityTypes_[c]);
        }
      }
    }
  } else if (auto k = keys_.find(key); k != keys_.end()) {
    for (const auto& [value, types] : k->second.values) {
      Bits both = types;
      both &= mask;
      if (both.any()) {
        seen.insert(value);
      }
    }
  } else if (const Requirement* r = reqs_.get(id).get(key); r && r->finiteValues()) {
    return r->finiteValues()->size();
  }
  return seen.size();
}

Bits PoolCatalog::withinLimits() const {
  Bits out(typeCount(), true);
  for (size_t t = 0; t < typeCount(); ++t) {
    for (const auto& [slot, left] : limits_) {
      if (slot < capacity_[t].size() && capacity_[t][slot] > left) {
        out.reset(t);
      }
    }
  }
  return out;
}

Vec PoolCatalog::largestCapacity(const Bits& mask) const {
  Vec out(maxAlloc_.size(), 0);
  mask.forEach([&](size_t t) {
    for (size_t s = 0; s < out.size(); ++s) {
      out[s] = std::max(out[s], capacity_[t][s]);
    }
    return true;
  });
  return out;
}

void PoolCatalog::charge(const Vec& amount, int sign) {
  for (auto& [slot, left] : limits_) {
    if (slot < amount.size()) {
      left -= sign * amount[slot];
    }
  }
}

std::string PoolCatalog::limitsError() const {
  return "all available instance types exceed limits for nodepool: \"" + name_ + "\"";
}

}  // namespace nodewright::controllers::provisioning::scheduling
