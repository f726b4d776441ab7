#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "aws/xml.h"
#include "emulators/ec2/action.h"
#include "emulators/ec2/describe_actions.h"
#include "emulators/ec2/fleet.h"
#include "emulators/ec2/instance.h"
#include "emulators/ec2/launch.h"
#include "emulators/ec2/param_reader.h"
#include "emulators/ec2/render.h"
#include "emulators/ec2/tagging.h"

// RunInstances, DescribeInstances and TerminateInstances; CreateFleet (fleet.cc) and
// CreateTags/DeleteTags (tagging.cc) are registered here too.
namespace nodewright::emulators::ec2 {
namespace {

bool isHex(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
}

// CONFIRMED: "Invalid id: \"ma1\"" (ClusterLabs/cluster-glue#29) and the NotFound wording,
// singular and plural (getmoto/moto#4903), for DescribeInstances and TerminateInstances.
aws::ApiResult<void> checkInstanceIds(ResourceStore& store, const std::vector<std::string>& ids) {
  for (const std::string& id : ids) {
    const std::string_view digits = std::string_view(id).substr(std::min<size_t>(2, id.size()));
    if (!id.starts_with("i-") || !isHex(digits) || (digits.size() != 8 && digits.size() != 17)) {
      return aws::apiFail("InvalidInstanceID.Malformed", fmt::format("Invalid id: \"{}\"", id));
    }
  }
  std::vector<std::string> missing;
  std::set<std::string, std::less<>> seen;
  for (const std::string& id : ids) {
    // Terminated instances stay visible, so only removed ones are missing.
    if (seen.insert(id).second && !store.get(kind::kInstance, id)) {
      missing.push_back(id);
    }
  }
  if (missing.size() == 1) {
    return aws::apiFail("InvalidInstanceID.NotFound",
                        fmt::format("The instance ID '{}' does not exist", missing.front()));
  }
  if (!missing.empty()) {
    return aws::apiFail("InvalidInstanceID.NotFound",
                        fmt::format("The instance IDs '{}' do not exist", joinIds(missing)));
  }
  return {};
}

aws::ApiResult<LaunchPlan> parseRunInstances(ActionContext& ctx) {
  const aws::Params& p = ctx.params;
  LaunchPlan plan;
  auto requested = parseLaunchTemplateData(p);
  if (!requested) {
    return failWith(requested);
  }
  plan.data = std::move(*requested);
  if (auto ref = parseLaunchTemplateRef(p.sub("LaunchTemplate"))) {
    auto resolved = resolveLaunchTemplate(ctx.engine.store(), *ref);
    if (!resolved) {
      return failWith(resolved);
    }
    plan.data = overlay(resolved->version->data, plan.data);
    plan.launchTemplate = std::move(*resolved);
  }
  auto minCount = p.integer("MinCount");
  if (!minCount) {
    return failWith(minCount);
  }
  auto maxCount = p.integer("MaxCount");
  if (!maxCount) {
    return failWith(maxCount);
  }
  // GUESS: code and wording.
  if (*minCount >= 1 && *maxCount < *minCount) {
    return aws::apiFail("InvalidParameterValue",
                        fmt::format("MinCount ({}) must be less than or equal to MaxCount ({}).",
                                    *minCount, *maxCount));
  }
  plan.minCount = *minCount;
  plan.maxCount = *maxCount;
  plan.subnetId = p.strOr("SubnetId", "");
  plan.clientToken = p.strOr("ClientToken", "");
  const auto& market = plan.data.instanceMarketOptions;
  plan.lifecycle = market && market->marketType == "spot" ? "spot" : "on-demand";
  if (auto dry = checkDryRun(p); !dry) {
    return failWith(dry);
  }
  return plan;
}

aws::ApiResult<std::string> runInstances(ActionContext& ctx) {
  auto plan = parseRunInstances(ctx);
  if (!plan) {
    return failWith(plan);
  }
  auto outcome = launchInstances(ctx, *plan);
  if (!outcome) {
    return failWith(outcome);
  }
  if (outcome->created) {
    ctx.engine.stats().recordCreate(plan->clientToken);
  }
  aws::xml::Ec2Response response(ctx.action, ctx.requestId);
  renderReservation(response.root(), outcome->reservationId, ctx.world.accountId,
                    outcome->instances);
  return response.str();
}

aws::ApiResult<std::string> describeInstances(ActionContext& ctx) {
  auto request = parseDescribeRequest(ctx.params, "InstanceId",
                                      {"instance-id",
                                       "instance-state-name",
                                       "instance-state-code",
                                       "instance-type",
                                       "availability-zone",
                                       "subnet-id",
                                       "vpc-id",
                                       "image-id",
                                       "instance-lifecycle",
                                       "client-token",
                                       "reservation-id",
                                       "private-ip-address",
                                       "private-dns-name",
                                       "ip-address",
                                       "architecture",
                                       "network-interface.network-card-index",
                                       "network-interface.network-interface-id",
                                       "network-interface.interface-type",
                                       "instance.group-id",
                                       "placement-group-name",
                                       "placement-partition-number",
                                       "tenancy",
                                       "key-name",
                                       "spot-instance-request-id"},
                                      5, 1000);
  if (!request) {
    return failWith(request);
  }
  // CONFIRMED: aws/karpenter-provider-aws#8642, aws/aws-cli#1976 (same wording for volumes).
  if (!request->ids.empty() && ctx.params.has("MaxResults")) {
    return aws::apiFail("InvalidParameterCombination",
                        "The parameter instancesSet cannot be used with the parameter maxResults");
  }
  if (auto ok = checkInstanceIds(ctx.engine.store(), request->ids); !ok) {
    return failWith(ok);
  }
  if (auto dry = checkDryRun(ctx.params); !dry) {
    return failWith(dry);
  }
  const std::set<std::string, std::less<>> ids(request->ids.begin(), request->ids.end());
  // Unlike other resources, terminated instances are listed while they stay visible.
  Page page = ctx.engine.store().page(
      kind::kInstance,
      [&](const Resource& r) {
        return (ids.empty() || ids.contains(r.id)) &&
               matchesFilters(request->filters, r.tags,
                              [&](std::string_view name) { return instanceFilterValues(r, name); });
      },
      request->page.after, request->page.limit);

  // Reservations in order of their first instance on the page.
  std::vector<std::string> order;
  std::map<std::string, std::vector<Resource>> byReservation;
  for (Resource& r : page.items) {
    const std::string& reservation = r.as<InstanceAttributes>()->reservationId;
    if (!byReservation.contains(reservation)) {
      order.push_back(reservation);
    }
    byReservation[reservation].push_back(std::move(r));
  }
  aws::xml::Ec2Response response(ctx.action, ctx.requestId);
  pugi::xml_node set = aws::xml::addElement(response.root(), "reservationSet");
  for (const std::string& reservation : order) {
    renderReservation(aws::xml::addItem(set), reservation, ctx.world.accountId,
                      byReservation[reservation]);
  }
  addNextToken(response.root(), page.nextAfter);
  return response.str();
}

aws::ApiResult<std::string> terminate(ActionContext& ctx) {
  auto ids = ctx.params.strings("InstanceId");
  if (!ids) {
    return failWith(ids);
  }
  if (ids->empty()) {
    return aws::apiFail("MissingParameter", "The request must contain the parameter InstanceId");
  }
  if (auto ok = checkInstanceIds(ctx.engine.store(), *ids); !ok) {
    return failWith(ok);
  }
  if (auto dry = checkDryRun(ctx.params); !dry) {
    return failWith(dry);
  }
  aws::xml::Ec2Response response(ctx.action, ctx.requestId);
  pugi::xml_node set = aws::xml::addElement(response.root(), "instancesSet");
  for (const TerminateResult& result : terminateInstances(ctx, *ids)) {
    pugi::xml_node item = aws::xml::addItem(set);
    aws::xml::addText(item, "instanceId", result.instance.id);
    renderState(item, "currentState", result.instance.state);
    renderState(item, "previousState", result.previousState);
  }
  return response.str();
}

}  // namespace

void addInstanceActions(ActionTable& table) {
  table["RunInstances"] = {bucket::kRunInstances, runInstances};
  table["CreateFleet"] = {bucket::kMutating, createFleet};
  table["DescribeInstances"] = {bucket::kDescribe, describeInstances};
  table["TerminateInstances"] = {bucket::kTerminateInstances, terminate};
  table["CreateTags"] = {bucket::kMutating, createTags};
  table["DeleteTags"] = {bucket::kMutating, deleteTags};
}

}  // namespace nodewright::emulators::ec2
