#pragma once

#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <pugixml.hpp>

#include "aws/error.h"
#include "aws/query.h"
#include "emulators/ec2/action.h"
#include "emulators/ec2/filters.h"
#include "emulators/ec2/render.h"
#include "emulators/engine/resource_store.h"

// The read-only actions that addDescribeActions() registers, one file per group, and the steps
// the Describe* actions over stored resources share: ids, filters and paging.
namespace nodewright::emulators::ec2 {

// DescribeInstanceTypes, DescribeInstanceTypeOfferings (instance_type_actions.cc).
void addInstanceTypeActions(ActionTable& table);
// DescribeAvailabilityZones, DescribeVpcs, DescribeSubnets, DescribeSecurityGroups
// (network_actions.cc).
void addNetworkActions(ActionTable& table);
// DescribeImages and CopyImage (image_actions.cc).
void addImageActions(ActionTable& table);
// DescribeSpotPriceHistory (spot_price_actions.cc).
void addSpotPriceActions(ActionTable& table);

struct DescribeRequest {
  std::vector<std::string> ids;  // the action's Id.N list; empty: every resource
  std::vector<Filter> filters;
  PageRequest page;
};

// Reads `idParam`.N (skipped when empty), Filter.N (names from `filterNames`, plus tag filters)
// and MaxResults in [minResults, maxResults] with NextToken.
aws::ApiResult<DescribeRequest> parseDescribeRequest(
    const aws::Params& params, std::string_view idParam,
    std::initializer_list<std::string_view> filterNames, int64_t minResults, int64_t maxResults);

// The requested ids that name no live resource of `kind`, in request order, each once.
std::vector<std::string> missingIds(ResourceStore& store, std::string_view kind,
                                    const std::vector<std::string>& ids);

// A resource's values for a filter name other than the tag filters.
using ResourceValues =
    std::function<std::vector<std::string>(const Resource& r, std::string_view name)>;

// One page of the live resources of `kind` that are among the request's ids (when it has any),
// match its filters and `extra` (when set), in id order.
Page findResources(ResourceStore& store, std::string_view kind, const DescribeRequest& request,
                   const ResourceValues& valuesOf, const ResourceFilter& extra = {});

// The response body of a Describe* action over stored resources: the list `listName` with one
// <item> per resource, filled by `render`, then the nextToken of the page.
using RenderItem = std::function<void(pugi::xml_node item, const Resource& r)>;
std::string pageResponse(const ActionContext& ctx, const char* listName, const Page& page,
                         const RenderItem& render);

}  // namespace nodewright::emulators::ec2
