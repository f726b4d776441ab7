#include "controllers/disruption/budgets.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/cron.h"

namespace nodewright::controllers::disruption {
namespace {

using api::karpenter::Budget;

// Karpenter's CRD defaults an omitted `nodes` to 10%; a budget built in code may leave it empty.
constexpr std::string_view kDefaultNodes = "10%";

// A budget as read once: its nodes as a count or percentage and its window, if any.
struct ReadBudget {
  std::string_view nodes;
  bool percent = false;
  int64_t value = 0;
  std::optional<core::CronSchedule> schedule;
  std::chrono::microseconds duration{0};
};

std::string quote(std::string_view text) {
  return "\"" + std::string(text) + "\"";
}

std::string fieldPath(size_t index, std::string_view field) {
  return "spec.disruption.budgets[" + std::to_string(index) + "]." + std::string(field);
}

core::Error fieldError(size_t index, std::string_view field, const std::string& message) {
  return core::Error::invalid(fieldPath(index, field) + ": " + message);
}

// Digits only, as intstr and the CRD pattern take them; nullopt past int32.
std::optional<int64_t> parseCount(std::string_view text) {
  if (text.empty() || text.size() > 10) {
    return std::nullopt;
  }
  int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    value = value * 10 + (c - '0');
  }
  if (value > std::numeric_limits<int32_t>::max()) {
    return std::nullopt;
  }
  return value;
}

core::Result<ReadBudget> readBudget(const Budget& budget, size_t index) {
  ReadBudget read;
  read.nodes = budget.nodes.empty() ? kDefaultNodes : std::string_view(budget.nodes);
  read.percent = read.nodes.ends_with('%');
  auto digits = read.percent ? read.nodes.substr(0, read.nodes.size() - 1) : read.nodes;
  auto value = parseCount(digits);
  if (!value || (read.percent && *value > 100)) {
    return core::fail(
        fieldError(index, "nodes",
                   quote(read.nodes) + " is not a node count or a percentage from 0% to 100%"));
  }
  read.value = *value;

  if (budget.schedule.empty()) {
    if (budget.duration) {
      return core::fail(fieldError(index, "schedule", "required: a duration needs a schedule"));
    }
    return read;
  }
  if (!budget.duration) {
    return core::fail(fieldError(index, "schedule",
                                 quote(budget.schedule) + " needs a duration to be active for"));
  }
  if (budget.duration->isNever() || budget.duration->value().count() < 0) {
    return core::fail(
        fieldError(index, "duration",
                   quote(budget.duration->toString()) + " must be a duration of zero or more"));
  }
  auto schedule = core::CronSchedule::parse(budget.schedule);
  if (!schedule) {
    return core::fail(
        fieldError(index, "schedule", quote(budget.schedule) + ": " + schedule.error().message()));
  }
  read.schedule = std::move(*schedule);
  read.duration = std::chrono::duration_cast<std::chrono::microseconds>(budget.duration->value());
  return read;
}

bool appliesTo(const Budget& budget, std::string_view reason) {
  return budget.reasons.empty() ||
         std::find(budget.reasons.begin(), budget.reasons.end(), reason) != budget.reasons.end();
}

// As intstr.GetScaledValueFromIntOrPercent(roundUp=true): 20% of 3 is 1, so a percentage above
// zero never blocks a small pool outright; "0" or "0%" does.
int allowedBy(const ReadBudget& read, int totalNodes) {
  if (!read.percent) {
    return static_cast<int>(read.value);
  }
  return static_cast<int>((read.value * totalNodes + 99) / 100);
}

// "budgets[1] (nodes 20% of 10 = 2, reasons Drifted, schedule "0 9 * * 1-5" for 8h0m0s)".
std::string describeBudget(size_t index, const Budget& budget, const ReadBudget& read,
                           int totalNodes) {
  std::string out = "budgets[" + std::to_string(index) + "] (nodes " + std::string(read.nodes);
  if (read.percent) {
    out +=
        " of " + std::to_string(totalNodes) + " = " + std::to_string(allowedBy(read, totalNodes));
  }
  if (!budget.reasons.empty()) {
    out += ", reasons ";
    for (size_t i = 0; i < budget.reasons.size(); ++i) {
      out += (i == 0 ? "" : ",") + budget.reasons[i];
    }
  }
  if (read.schedule) {
    out += ", schedule " + quote(read.schedule->spec()) + " for " + budget.duration->toString();
  }
  return out + ")";
}

std::string describeClosed(size_t index, const ReadBudget& read, core::TimePoint now) {
  auto opens = read.schedule->next(now);
  return "budgets[" + std::to_string(index) + "] is outside its window (" +
         (opens ? "opens " + core::Time(*opens).toString() : std::string("never opens")) + ")";
}

}  // namespace

core::Result<BudgetVerdict> allowedDisruptions(const api::karpenter::Disruption& disruption,
                                               std::string_view reason, int totalNodes,
                                               core::TimePoint now) {
  totalNodes = std::max(totalNodes, 0);
  // Every budget is read, applicable or not, so a bad one fails the pool for every reason
  // alike rather than only when its reason comes up.
  std::vector<ReadBudget> reads;
  reads.reserve(disruption.budgets.size());
  for (size_t i = 0; i < disruption.budgets.size(); ++i) {
    auto read = readBudget(disruption.budgets[i], i);
    if (!read) {
      return core::fail(read.error());
    }
    reads.push_back(std::move(*read));
  }

  BudgetVerdict verdict;
  verdict.allowed = totalNodes;
  size_t active = 0;
  std::string closed;
  // A closed window that would allow disruption when open is a maintenance window.
  bool closedWindow = false;
  for (size_t i = 0; i < reads.size(); ++i) {
    const ReadBudget& read = reads[i];
    if (!appliesTo(disruption.budgets[i], reason)) {
      continue;
    }
    if (read.schedule && !core::windowOpen(*read.schedule, read.duration, now)) {
      closed += (closed.empty() ? "" : ", ") + describeClosed(i, read, now);
      closedWindow = closedWindow || allowedBy(read, totalNodes) > 0;
      continue;
    }
    ++active;
    int allowed = allowedBy(read, totalNodes);
    // The first of equally restrictive budgets wins, so the description is stable.
    if (!verdict.budget || allowed < verdict.allowed) {
      verdict.allowed = allowed;
      verdict.budget = i;
    }
  }

  if (verdict.budget) {
    size_t i = *verdict.budget;
    verdict.description = describeBudget(i, disruption.budgets[i], reads[i], totalNodes);
    if (active > 1) {
      verdict.description += ", the most restrictive of " + std::to_string(active) + " active";
    }
    if (!closed.empty()) {
      verdict.description += "; " + closed;
    }
  } else if (closedWindow) {
    // Karpenter would disrupt without limit here, outside every window the user wrote for this
    // reason (the complaint "drift outside maintenance windows"): we wait for one to open.
    verdict.allowed = 0;
    verdict.description = closed + ": outside every maintenance window";
  } else if (!closed.empty()) {
    verdict.description = closed + ": none active";
  } else if (reads.empty()) {
    verdict.description = "no budgets: none active";
  } else {
    verdict.description = "no budget applies to " + std::string(reason) + ": none active";
  }
  return verdict;
}

}  // namespace nodewright::controllers::disruption
