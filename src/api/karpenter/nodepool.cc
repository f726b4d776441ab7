#include "api/karpenter/nodepool.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "api/karpenter/rules.h"

namespace nodewright::api::karpenter {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

namespace {

constexpr const char* kSchedulePattern =
    R"(^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\s(.+)\s(.+)\s(.+)\s(.+))$)";

bool allDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// ^((100|[0-9]{1,2})%|[0-9]+)$
bool isBudgetNodes(std::string_view s) {
  if (!s.empty() && s.back() == '%') {
    std::string_view n = s.substr(0, s.size() - 1);
    return (allDigits(n) && n.size() <= 2) || n == "100";
  }
  return allDigits(s);
}

// The CRD's schedule pattern, as Go's regexp.MatchString applies it: a search, in which only
// the first alternative is anchored at the start. Run as a small automaton (linear, as RE2 is;
// a backtracking regex is polynomial in the length here). The cron itself is parsed when the
// budget is used, as upstream does: a schedule the pattern admits but cron rejects is reported
// by the disruption controller, not refused here.
bool matchesSchedulePattern(std::string_view s) {
  for (std::string_view word :
       {"annually", "yearly", "monthly", "weekly", "daily", "midnight", "hourly"}) {
    if (s.size() > word.size() && s[0] == '@' && s.substr(1, word.size()) == word) {
      return true;
    }
  }
  // (.+)\s(.+)\s(.+)\s(.+)\s(.+)$ where '.' is anything but '\n' and \s is [\t\n\f\r ].
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'; };
  std::array<bool, 5> inField{};   // inside field k, having read at least one character
  std::array<bool, 4> afterSep{};  // just read the separator after field k
  for (char c : s) {
    std::array<bool, 5> field{};
    std::array<bool, 4> sep{};
    field[0] = c != '\n';  // the search may start anywhere
    for (size_t k = 0; k < 5; ++k) {
      field[k] = field[k] || (c != '\n' && (inField[k] || (k > 0 && afterSep[k - 1])));
      if (k < 4) {
        sep[k] = space(c) && inField[k];
      }
    }
    inField = field;
    afterSep = sep;
  }
  return inField[4];
}

void validateBudget(const Budget& b, const FieldPath& p, FieldErrors& errs) {
  if (!b.nodes.empty() && !isBudgetNodes(b.nodes)) {
    std::string at = p.child("nodes").str();
    errs.push_back({at, rules::patternError(b.nodes, at, "^((100|[0-9]{1,2})%|[0-9]+)$")});
  }
  if (!b.schedule.empty() && !matchesSchedulePattern(b.schedule)) {
    std::string at = p.child("schedule").str();
    errs.push_back({at, rules::patternError(b.schedule, at, kSchedulePattern)});
  }
  // reasons is a list-type set.
  for (size_t i = 0; i < b.reasons.size(); ++i) {
    if (std::find(b.reasons.begin(), b.reasons.begin() + static_cast<std::ptrdiff_t>(i),
                  b.reasons[i]) != b.reasons.begin() + static_cast<std::ptrdiff_t>(i)) {
      errs.push_back({p.child("reasons").index(i).str(), fielderr::duplicate(Json(b.reasons[i]))});
    }
  }
  rules::checkDuration(b.duration, rules::DurationRule::MinutesOrHours, p.child("duration"), errs);
}

void validateBudgets(const std::vector<Budget>& budgets, const FieldPath& p, FieldErrors& errs) {
  bool unpaired = std::any_of(budgets.begin(), budgets.end(), [](const Budget& b) {
    return b.schedule.empty() != !b.duration.has_value();
  });
  if (unpaired) {
    errs.push_back({p.str(), rules::celError("array", "'schedule' must be set with 'duration'")});
  }
}

void validateTemplateSpec(const NodeClaimTemplateSpec& s, const FieldPath& p, FieldErrors& errs) {
  // The NodePool CRD adds this rule to the requirement key (a NodeClaim may carry the key).
  for (size_t i = 0; i < s.requirements.size(); ++i) {
    if (s.requirements[i].key == "karpenter.sh/nodepool") {
      errs.push_back({p.child("requirements").index(i).child("key").str(),
                      rules::celError("string", R"(label "karpenter.sh/nodepool" is restricted)")});
    }
  }
  rules::validateRequirementList(s.requirements, p.child("requirements"), errs);
  rules::checkDuration(s.expireAfter, rules::DurationRule::SecondsOrNever, p.child("expireAfter"),
                       errs);
  rules::checkDuration(s.terminationGracePeriod, rules::DurationRule::Seconds,
                       p.child("terminationGracePeriod"), errs);
}

// A CEL rule on spec fails as kube-apiserver reports it: at the object, valued "object".
void specRule(const FieldPath& p, const std::string& message, FieldErrors& errs) {
  errs.push_back({p.str(), fielderr::invalid(Json("object"), message)});
}

// Upstream's x-kubernetes-validations on NodePoolSpec that involve replicas.
void validateStaticSpec(const NodePoolSpec& s, const FieldPath& p, FieldErrors& errs) {
  if (!s.replicas) {
    return;
  }
  const bool nodesOnly = s.limits.empty() || (s.limits.size() == 1 && s.limits.count("nodes"));
  if (!nodesOnly) {
    specRule(p, "only 'limits.nodes' is supported on static NodePools", errs);
  }
  if (s.weight) {
    specRule(p, "'weight' is not supported on static NodePools", errs);
  }
}

bool hasReplicas(const Json& object) {
  const auto spec = object.find("spec");
  if (spec == object.end() || !spec->is_object()) {
    return false;
  }
  const auto replicas = spec->find("replicas");
  return replicas != spec->end() && !replicas->is_null();
}

}  // namespace

FieldErrors validateNodePoolUpdate(const Json& before, const Json& after) {
  FieldErrors errs;
  if (hasReplicas(before) != hasReplicas(after)) {
    specRule(FieldPath("spec"),
             "Cannot transition NodePool between static (replicas set) and dynamic (replicas "
             "unset) provisioning modes",
             errs);
  }
  return errs;
}

const StructSchema& describe(Tag<TemplateMetadata>) {
  using M = TemplateMetadata;
  static const StructSchema s =
      StructBuilder<M>("TemplateMetadata", "Labels and annotations for the launched nodes.")
          .field<&M::labels>("labels",
                             "Labels applied to every node; restricted kubelet and Karpenter "
                             "domains are rejected.")
          .field<&M::annotations>("annotations", "Annotations applied to every node.")
          .validate([](const M& m, const FieldPath& p, FieldErrors& errs) {
            rules::validateLabels(m.labels, p.child("labels"), errs);
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<NodeClaimTemplateSpec>) {
  using S = NodeClaimTemplateSpec;
  static const StructSchema s =
      StructBuilder<S>("NodeClaimTemplateSpec",
                       "The desired state of the NodeClaims a NodePool launches (without "
                       "resource requests, which come from the pods).")
          .field<&S::taints>("taints", "Taints applied to the node.")
          .setList()
          .field<&S::startupTaints>("startupTaints",
                                    "Taints applied at startup and expected to be removed by a "
                                    "daemon; pods need not tolerate them to be provisioned for.")
          .setList()
          .field<&S::requirements>("requirements",
                                   "Constraints on the instances (instance type, zone, capacity "
                                   "type, ...), layered with the labels.")
          .dynamic()
          .setList()
          .maxItems(100)
          .field<&S::nodeClassRef>("nodeClassRef",
                                   "The cloud provider node class with the instance settings.")
          .required()
          .field<&S::expireAfter>("expireAfter",
                                  "How long a node lives before it is replaced, measured from "
                                  "creation, or Never.")
          .pattern("^(([0-9]+(s|m|h))+|Never)$")
          .defaultsTo(Json("720h"))
          .field<&S::terminationGracePeriod>(
              "terminationGracePeriod",
              "Longest time a draining node waits for its pods before deleting them forcefully; "
              "unset waits indefinitely.")
          .pattern("^([0-9]+(s|m|h))+$")
          .field<&S::kubelet>("kubelet", "Kubelet settings for the nodes.")
          .validate(validateTemplateSpec)
          .build();
  return s;
}

const StructSchema& describe(Tag<NodeClaimTemplate>) {
  using T = NodeClaimTemplate;
  static const StructSchema s =
      StructBuilder<T>("NodeClaimTemplate", "The template NodeClaims are created from.")
          .field<&T::metadata>("metadata", "Labels and annotations for the launched nodes.")
          .field<&T::spec>("spec", "The desired state of the launched NodeClaims.")
          .required()
          .build();
  return s;
}

const StructSchema& describe(Tag<Budget>) {
  static const StructSchema s =
      StructBuilder<Budget>("Budget",
                            "Limits how many of the NodePool's nodes may be disrupted at once, "
                            "optionally only inside a scheduled window.")
          .field<&Budget::reasons>("reasons",
                                   "Disruption reasons this budget applies to: Underutilized, "
                                   "Empty, Drifted; all when empty.")
          .setList()
          .maxItems(50)
          .enums({"Underutilized", "Empty", "Drifted"})
          .field<&Budget::nodes>("nodes",
                                 "Largest number or percentage of nodes that may be disrupting "
                                 "at once.")
          .required()
          .pattern("^((100|[0-9]{1,2})%|[0-9]+)$")
          .defaultsTo(Json("10%"))
          .field<&Budget::schedule>("schedule",
                                    "Cron schedule (UTC) when the budget becomes active; needs a "
                                    "duration. Unset: always active.")
          .pattern(kSchedulePattern)
          .field<&Budget::duration>("duration",
                                    "How long the budget stays active after each schedule hit; "
                                    "whole minutes or hours.")
          .pattern("^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$")
          .validate(validateBudget)
          .build();
  return s;
}

const StructSchema& describe(Tag<Disruption>) {
  using D = Disruption;
  static const StructSchema s =
      StructBuilder<D>("Disruption", "When and how fast Karpenter may disrupt the nodes.")
          .field<&D::consolidationPolicy>("consolidationPolicy",
                                          "Which nodes consolidation may remove: only empty ones "
                                          "or also underutilized ones.")
          .enums({"WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"})
          .defaultsTo(Json("WhenEmptyOrUnderutilized"))
          .field<&D::consolidateAfter>("consolidateAfter",
                                       "How long a node must be consolidatable (no pod changes) "
                                       "before it is consolidated, or Never.")
          .required()
          .pattern("^(([0-9]+(s|m|h))+|Never)$")
          .defaultsTo(Json("0s"))
          .field<&D::budgets>("budgets",
                              "Disruption budgets; the most restrictive active one wins.")
          .maxItems(50)
          .defaultsTo(Json::array({Json{{"nodes", "10%"}}}))
          .validate([](const D& d, const FieldPath& p, FieldErrors& errs) {
            validateBudgets(d.budgets, p.child("budgets"), errs);
            rules::checkDuration(d.consolidateAfter, rules::DurationRule::SecondsOrNever,
                                 p.child("consolidateAfter"), errs);
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<NodePoolSpec>) {
  using S = NodePoolSpec;
  static const StructSchema s =
      StructBuilder<S>("NodePoolSpec",
                       "A template for the nodes Karpenter launches for unschedulable pods, and "
                       "the rules for disrupting them.")
          .field<&S::template_>("template",
                                "Template of the NodeClaims this NodePool launches; pods narrow "
                                "it further.")
          .required()
          .field<&S::disruption>("disruption", "Disruption settings.")
          .behavioral()
          .field<&S::limits>("limits",
                             "Upper bounds on the total resources this NodePool may launch.")
          .behavioral()
          .field<&S::weight>("weight",
                             "Priority against other NodePools; higher is tried first, unset "
                             "counts as 0.")
          .behavioral()
          .min(1)
          .max(100)
          .field<&S::replicas>("replicas",
                               "Nodes a static NodePool keeps whatever the pods need; only "
                               "limits.nodes applies and weight is not supported. Unset, the "
                               "nodes follow the pods.")
          .behavioral()
          .min(0)
          .validate(validateStaticSpec)
          .build();
  return s;
}

const StructSchema& describe(Tag<NodePoolStatus>) {
  using S = NodePoolStatus;
  static const StructSchema s =
      StructBuilder<S>("NodePoolStatus", "Observed state of the NodePool.")
          .field<&S::resources>("resources", "Resources of the nodes the NodePool has launched.")
          .field<&S::conditions>("conditions", "Signals for health and readiness.")
          .field<&S::nodes>("nodes", "Number of nodes the NodePool has launched.")
          .min(0)
          .validate([](const S& st, const FieldPath& p, FieldErrors& errs) {
            rules::validateConditions(st.conditions, p.child("conditions"), errs);
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<NodePool>) {
  static const StructSchema s = [] {
    StructBuilder<NodePool> b("NodePool",
                              "A NodePool sets constraints on the nodes Karpenter creates and on "
                              "the pods that can run on them.");
    withTypeMeta(b);
    return b.field<&NodePool::spec>("spec", "Desired state of the NodePool.")
        .required()
        .field<&NodePool::status>("status", "Observed state of the NodePool.")
        .build();
  }();
  return s;
}

}  // namespace nodewright::api::karpenter
