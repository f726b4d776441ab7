#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/core/affinity.h"
#include "api/karpenter/common.h"
#include "api/labels.h"

// Karpenter's requirement algebra (pkg/scheduling/requirement.go): what a node's label for one
// key may be, as a set of label states. A state is either "absent" or a value, so In, NotIn,
// Exists, DoesNotExist and the integer bounds Gt/Lt/Gte/Lte all become one shape, and
// intersecting two requirements is intersecting two sets.
namespace nodewright::controllers::provisioning::scheduling {

class Requirement {
 public:
  // No restriction: any value, or no label.
  Requirement() = default;
  // From an operator and values; an unknown operator admits nothing.
  static Requirement fromOperator(std::string_view op, const std::vector<std::string>& values);
  static Requirement in(std::vector<std::string> values);

  // Whether a node whose label has this value satisfies it.
  bool has(std::string_view value) const;
  // Whether a node without the label satisfies it (NotIn, DoesNotExist, no restriction).
  bool allowsAbsent() const { return absent_; }
  // Nothing satisfies it: the requirements it came from conflict.
  bool empty() const;
  // The admitted values when they are a finite list (In); nullptr for "all but ...".
  const std::vector<std::string>* finiteValues() const { return complement_ ? nullptr : &values_; }
  bool unrestricted() const { return absent_ && complement_ && values_.empty() && !gt_ && !lt_; }

  Requirement intersect(const Requirement& other) const;

  std::optional<int32_t> minValues;

  // The node selector requirements that express it (none when unrestricted).
  void appendTo(const std::string& key,
                std::vector<api::karpenter::NodeSelectorRequirementWithMinValues>& out) const;
  // A stable text form: identity for interning, and the form errors show.
  std::string describe() const;

 private:
  bool absent_ = true;
  bool complement_ = true;           // values_ lists excluded values
  std::vector<std::string> values_;  // sorted, unique
  std::optional<int64_t> gt_, lt_;   // exclusive integer bounds on present values
};

// A requirement per label key, kept sorted by key. The conjunction of all of them.
class Requirements {
 public:
  const Requirement* get(std::string_view key) const;
  // Intersects `r` into the requirement for `key`.
  void add(const std::string& key, const Requirement& r);
  void add(const Requirements& other);
  Requirements intersect(const Requirements& other) const {
    Requirements out = *this;
    out.add(other);
    return out;
  }

  // Karpenter's Compatible(incoming, AllowUndefinedWellKnownLabels): every key both define
  // must overlap; a key only `incoming` defines is fine when it admits an absent label or when
  // the cloud defines it (well-known). Nullopt when compatible, else why not.
  std::optional<std::string> compatible(const Requirements& incoming) const;
  // The first key whose requirement admits nothing.
  std::optional<std::string> conflict() const;

  const std::vector<std::pair<std::string, Requirement>>& entries() const { return entries_; }
  std::string describe() const;

  static Requirements fromSelector(const std::map<std::string, std::string>& nodeSelector);
  static Requirements fromTerm(const api::corev1::NodeSelectorTerm& term);
  static Requirements fromApi(
      const std::vector<api::karpenter::NodeSelectorRequirementWithMinValues>& reqs);

 private:
  std::vector<std::pair<std::string, Requirement>> entries_;
};

// Label keys the cloud gives values to (instance type labels, zone, capacity type, region) or
// Karpenter sets (nodepool): a pod may require them although no NodePool lists them.
bool isWellKnownLabel(std::string_view key);

}  // namespace nodewright::controllers::provisioning::scheduling
