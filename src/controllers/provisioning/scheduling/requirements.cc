#include "controllers/provisioning/scheduling/requirements.h"

#include <algorithm>
#include <iterator>

#include "cloud/well_known_labels.h"

namespace nodewright::controllers::provisioning::scheduling {
namespace {

std::vector<std::string> sortedUnique(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

std::optional<int64_t> tighter(std::optional<int64_t> a, std::optional<int64_t> b, bool lower) {
  if (!a) {
    return b;
  }
  if (!b) {
    return a;
  }
  return lower ? std::max(*a, *b) : std::min(*a, *b);
}

}  // namespace

Requirement Requirement::fromOperator(std::string_view op, const std::vector<std::string>& values) {
  Requirement r;
  auto bound = [&]() -> std::optional<int64_t> {
    return values.size() == 1 ? api::parseLabelInteger(values[0]) : std::nullopt;
  };
  if (op == api::kOpIn) {
    r = in(values);
  } else if (op == api::kOpNotIn) {
    r.values_ = sortedUnique(values);
  } else if (op == api::kOpExists) {
    r.absent_ = false;
  } else if (op == api::kOpDoesNotExist) {
    r.complement_ = false;
  } else if (op == api::kOpGt || op == api::kOpGte || op == api::kOpLt || op == api::kOpLte) {
    r.absent_ = false;
    std::optional<int64_t> n = bound();
    if (!n) {
      r.complement_ = false;  // an unparsable bound matches no node
    } else if (op == api::kOpGt) {
      r.gt_ = n;
    } else if (op == api::kOpGte) {
      r.gt_ = *n - 1;
    } else if (op == api::kOpLt) {
      r.lt_ = n;
    } else {
      r.lt_ = *n + 1;
    }
  } else {
    r.absent_ = false;
    r.complement_ = false;
  }
  return r;
}

Requirement Requirement::in(std::vector<std::string> values) {
  Requirement r;
  r.absent_ = false;
  r.complement_ = false;
  r.values_ = sortedUnique(std::move(values));
  return r;
}

bool Requirement::has(std::string_view value) const {
  if (gt_ || lt_) {
    std::optional<int64_t> n = api::parseLabelInteger(value);
    if (!n || (gt_ && *n <= *gt_) || (lt_ && *n >= *lt_)) {
      return false;
    }
  }
  bool listed = std::binary_search(values_.begin(), values_.end(), value);
  return complement_ ? !listed : listed;
}

bool Requirement::empty() const {
  if (absent_) {
    return false;
  }
  if (!complement_) {
    return values_.empty();
  }
  return gt_ && lt_ && *lt_ - *gt_ <= 1;
}

Requirement Requirement::intersect(const Requirement& o) const {
  Requirement r;
  r.absent_ = absent_ && o.absent_;
  r.gt_ = tighter(gt_, o.gt_, true);
  r.lt_ = tighter(lt_, o.lt_, false);
  if (minValues || o.minValues) {
    r.minValues = std::max(minValues.value_or(0), o.minValues.value_or(0));
  }
  const std::vector<std::string>& a = values_;
  const std::vector<std::string>& b = o.values_;
  if (!complement_ && !o.complement_) {
    r.complement_ = false;
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(r.values_));
  } else if (!complement_ || !o.complement_) {
    const auto& kept = complement_ ? b : a;
    const auto& dropped = complement_ ? a : b;
    r.complement_ = false;
    std::set_difference(kept.begin(), kept.end(), dropped.begin(), dropped.end(),
                        std::back_inserter(r.values_));
  } else {
    std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(r.values_));
  }
  if (!r.complement_ && (r.gt_ || r.lt_)) {
    // A finite list carries its bounds by being filtered through them.
    std::erase_if(r.values_, [&](const std::string& v) { return !r.has(v); });
    r.gt_.reset();
    r.lt_.reset();
  }
  return r;
}

void Requirement::appendTo(
    const std::string& key,
    std::vector<api::karpenter::NodeSelectorRequirementWithMinValues>& out) const {
  auto push = [&](const char* op, std::vector<std::string> values) {
    api::karpenter::NodeSelectorRequirementWithMinValues r;
    r.key = key;
    r.operator_ = op;
    r.values = std::move(values);
    r.minValues = minValues;
    out.push_back(std::move(r));
  };
  if (!complement_) {
    if (!values_.empty() || !absent_) {
      push(api::kOpIn, values_);
    } else {
      push(api::kOpDoesNotExist, {});
    }
    return;
  }
  if (gt_) {
    push(api::kOpGt, {std::to_string(*gt_)});
  }
  if (lt_) {
    push(api::kOpLt, {std::to_string(*lt_)});
  }
  if (!values_.empty()) {
    push(api::kOpNotIn, values_);
  }
  if (!absent_ && !gt_ && !lt_) {
    push(api::kOpExists, {});
  }
}

std::string Requirement::describe() const {
  std::string out;
  if (!complement_ && values_.empty()) {
    out = absent_ ? "DoesNotExist" : "In []";
  } else {
    out = complement_ ? (values_.empty() ? (absent_ ? "Any" : "Exists") : "NotIn [") : "In [";
    for (size_t i = 0; i < values_.size(); ++i) {
      out += (i ? "," : "") + values_[i];
    }
    if (!values_.empty()) {
      out += "]";
    }
    if (complement_ && !values_.empty() && !absent_) {
      out += " Exists";
    }
  }
  if (gt_) {
    out += " >" + std::to_string(*gt_);
  }
  if (lt_) {
    out += " <" + std::to_string(*lt_);
  }
  if (minValues) {
    out += " minValues " + std::to_string(*minValues);
  }
  return out;
}

const Requirement* Requirements::get(std::string_view key) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                             [](const auto& e, std::string_view k) { return e.first < k; });
  return it != entries_.end() && it->first == key ? &it->second : nullptr;
}

void Requirements::add(const std::string& key, const Requirement& r) {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                             [](const auto& e, const std::string& k) { return e.first < k; });
  if (it != entries_.end() && it->first == key) {
    it->second = it->second.intersect(r);
  } else {
    entries_.insert(it, {key, r});
  }
}

void Requirements::add(const Requirements& other) {
  for (const auto& [key, r] : other.entries_) {
    add(key, r);
  }
}

std::optional<std::string> Requirements::compatible(const Requirements& incoming) const {
  for (const auto& [key, r] : incoming.entries_) {
    const Requirement* existing = get(key);
    if (existing == nullptr) {
      if (!r.allowsAbsent() && !isWellKnownLabel(key)) {
        return "label \"" + key + "\" does not have known values";
      }
    } else if (existing->intersect(r).empty()) {
      return "key " + key + ", " + r.describe() + " not in " + existing->describe();
    }
  }
  return std::nullopt;
}

std::optional<std::string> Requirements::conflict() const {
  for (const auto& [key, r] : entries_) {
    if (r.empty()) {
      return key;
    }
  }
  return std::nullopt;
}

std::string Requirements::describe() const {
  std::string out;
  for (const auto& [key, r] : entries_) {
    out += (out.empty() ? "" : ", ") + key + " " + r.describe();
  }
  return out;
}

Requirements Requirements::fromSelector(const std::map<std::string, std::string>& nodeSelector) {
  Requirements out;
  for (const auto& [key, value] : nodeSelector) {
    out.add(key, Requirement::in({value}));
  }
  return out;
}

Requirements Requirements::fromTerm(const api::corev1::NodeSelectorTerm& term) {
  Requirements out;
  for (const auto& e : term.matchExpressions) {
    out.add(e.key, Requirement::fromOperator(e.operator_, e.values));
  }
  return out;
}

Requirements Requirements::fromApi(
    const std::vector<api::karpenter::NodeSelectorRequirementWithMinValues>& reqs) {
  Requirements out;
  for (const auto& e : reqs) {
    Requirement r = Requirement::fromOperator(e.operator_, e.values);
    r.minValues = e.minValues;
    out.add(e.key, r);
  }
  return out;
}

bool isWellKnownLabel(std::string_view key) {
  return cloud::labels::definedByInstanceType(key) || key == cloud::labels::kZone ||
         key == cloud::labels::kCapacityType || key == cloud::labels::kNodePool ||
         key == "topology.kubernetes.io/region" || key == "node.kubernetes.io/windows-build";
}

}  // namespace nodewright::controllers::provisioning::scheduling
