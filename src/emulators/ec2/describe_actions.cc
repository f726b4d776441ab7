#include "emulators/ec2/describe_actions.h"

#include <set>

#include "aws/xml.h"

namespace nodewright::emulators::ec2 {

void addDescribeActions(ActionTable& table) {
  addInstanceTypeActions(table);
  addNetworkActions(table);
  addImageActions(table);
  addSpotPriceActions(table);
}

aws::ApiResult<DescribeRequest> parseDescribeRequest(
    const aws::Params& params, std::string_view idParam,
    std::initializer_list<std::string_view> filterNames, int64_t minResults, int64_t maxResults) {
  DescribeRequest request;
  if (!idParam.empty()) {
    auto ids = params.strings(idParam);
    if (!ids) {
      return tl::unexpected(ids.error());
    }
    request.ids = std::move(*ids);
  }
  auto filters = parseFilters(params);
  if (!filters) {
    return tl::unexpected(filters.error());
  }
  if (auto ok = checkFilterNames(*filters, filterNames); !ok) {
    return tl::unexpected(ok.error());
  }
  request.filters = std::move(*filters);
  auto page = parsePageRequest(params, minResults, maxResults);
  if (!page) {
    return tl::unexpected(page.error());
  }
  request.page = std::move(*page);
  return request;
}

std::vector<std::string> missingIds(ResourceStore& store, std::string_view kind,
                                    const std::vector<std::string>& ids) {
  std::vector<std::string> missing;
  std::set<std::string, std::less<>> seen;
  for (const std::string& id : ids) {
    if (!seen.insert(id).second) {
      continue;
    }
    auto found = store.get(kind, id);
    if (!found || !found->live()) {
      missing.push_back(id);
    }
  }
  return missing;
}

Page findResources(ResourceStore& store, std::string_view kind, const DescribeRequest& request,
                   const ResourceValues& valuesOf, const ResourceFilter& extra) {
  const std::set<std::string, std::less<>> ids(request.ids.begin(), request.ids.end());
  auto filter = [&](const Resource& r) {
    if (!r.live() || (!ids.empty() && !ids.count(r.id)) || (extra && !extra(r))) {
      return false;
    }
    return matchesFilters(request.filters, r.tags,
                          [&](std::string_view name) { return valuesOf(r, name); });
  };
  return store.page(kind, filter, request.page.after, request.page.limit);
}

std::string pageResponse(const ActionContext& ctx, const char* listName, const Page& page,
                         const RenderItem& render) {
  aws::xml::Ec2Response response(ctx.action, ctx.requestId);
  pugi::xml_node list = aws::xml::addElement(response.root(), listName);
  for (const Resource& r : page.items) {
    render(aws::xml::addItem(list), r);
  }
  addNextToken(response.root(), page.nextAfter);
  return response.str();
}

}  // namespace nodewright::emulators::ec2
