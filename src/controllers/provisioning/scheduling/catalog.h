#pragma once

#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/core/taint.h"
#include "api/karpenter/nodepool.h"
#include "cloud/instance_type.h"
#include "controllers/provisioning/scheduling/bits.h"
#include "controllers/provisioning/scheduling/req_table.h"
#include "controllers/provisioning/scheduling/resources.h"

// A NodePool and its instance types, precomputed once per pass so that "which types can hold
// these requests under these requirements" is bitset arithmetic: per resource the types sorted
// by allocatable (those holding at least x are a suffix), per label value the types carrying
// it, per zone x capacity type the types with an available offering there.
namespace nodewright::controllers::provisioning::scheduling {

class PoolCatalog {
 public:
  // `types` must outlive the catalog. `resources` must already hold every resource name of the
  // pass (vectors are sized by it).
  PoolCatalog(const api::karpenter::NodePool& pool, const std::vector<cloud::InstanceType>& types,
              const cloud::ResourceList& inUse, ResourceIndex& resources, ReqTable& reqs);

  const std::string& name() const { return name_; }
  int32_t weight() const { return weight_; }
  const api::karpenter::NodePool& pool() const { return *pool_; }
  // The template requirements, the template labels and karpenter.sh/nodepool, interned.
  int requirements() const { return requirements_; }
  const std::vector<api::corev1::Taint>& taints() const { return taints_; }
  size_t typeCount() const { return types_->size(); }
  const cloud::InstanceType& type(size_t t) const { return (*types_)[t]; }
  const Vec& allocatable(size_t t) const { return alloc_[t]; }
  const Vec& maxAllocatable() const { return maxAlloc_; }
  // The largest allocatable per resource among the types in `mask`.
  Vec maxWithin(const Bits& mask) const;
  // The types sorted by price under requirement set `id`, cheapest first (then by name).
  const std::vector<size_t>& byPrice(int id);

  // Narrows `mask` to the types whose allocatable holds `need` in every resource.
  void keepFitting(Bits& mask, const Vec& need) const;
  // The types compatible with requirement set `id` (instance type labels and offerings).
  const Bits& typesFor(int id);
  // The cheapest available offering of type t allowed by requirement set `id`; +inf if none.
  double price(size_t t, int id);
  // The values (zones, capacity types, label values) the pool can give `key`, for topology
  // domains. Empty when it cannot tell (a key nobody lists).
  std::vector<std::string> domains(const std::string& key);
  // How many distinct values of `key` the types in `mask` give, under requirement set `id`.
  size_t distinctValues(const std::string& key, const Bits& mask, int id);

  // Limits: the types whose capacity fits what the limits leave; all when the pool has none.
  bool hasLimits() const { return !limits_.empty(); }
  Bits withinLimits() const;
  // Charges (or with negative sign refunds) the largest capacity of the types in `mask`.
  Vec largestCapacity(const Bits& mask) const;
  void charge(const Vec& amount, int sign);
  std::string limitsError() const;

  // DaemonSet pods' requests every node of the pool carries.
  Vec daemonOverhead;

 private:
  struct KeyIndex {
    Bits has;
    std::map<std::string, Bits> values;
  };
  Bits offeringMask(const Requirements& reqs) const;

  const api::karpenter::NodePool* pool_;
  const std::vector<cloud::InstanceType>* types_;
  ReqTable& reqs_;
  std::string name_;
  int32_t weight_;
  int requirements_;
  std::vector<api::corev1::Taint> taints_;
  std::vector<Vec> alloc_, capacity_;
  Vec maxAlloc_;
  std::vector<std::vector<int64_t>> sorted_;  // per resource, allocatable ascending
  std::vector<std::vector<Bits>> suffix_;     // per resource, types holding >= sorted_[r][k]
  std::vector<std::vector<size_t>> order_;    // per resource, type indices in sorted_ order
  std::unordered_map<int, std::vector<size_t>> byPrice_;
  std::map<std::string, KeyIndex> keys_;
  std::vector<std::string> zones_, capacityTypes_;
  std::vector<Bits> offers_;   // [zone * capacityTypes + capacityType]
  std::vector<double> price_;  // [type * offers + offer]
  std::unordered_map<int, Bits> typesByReq_;
  std::vector<std::pair<size_t, int64_t>> limits_;  // resource slot, what is left
};

}  // namespace nodewright::controllers::provisioning::scheduling
