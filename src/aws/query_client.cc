#include "aws/query_client.h"

#include <fmt/format.h>

#include "aws/xml.h"

namespace nodewright::aws {
namespace {

ApiError readQueryError(const HttpResponse& response, const std::string& requestId) {
  if (auto error = xml::parseEc2Error(response.body, response.status)) {
    return std::move(*error);
  }
  return ApiError{"UnknownError",
                  fmt::format("HTTP {} without an error document (request id {})", response.status,
                              requestId.empty() ? "none" : requestId),
                  response.status};
}

}  // namespace

QueryClient::QueryClient(const core::Clock& clock, Transport& transport, QueryClientOptions options)
    : options_(std::move(options)),
      caller_(clock, transport, signedCallOptions(options_, "query")) {}

ApiResult<std::string> QueryClient::call(std::string_view action, const ParamPairs& params) {
  ParamPairs pairs;
  pairs.reserve(params.size() + 2);
  pairs.emplace_back("Action", std::string(action));
  pairs.emplace_back("Version", options_.version);
  pairs.insert(pairs.end(), params.begin(), params.end());
  SignedRequest request{
      .operation = action,
      .contentType = "application/x-www-form-urlencoded; charset=utf-8",
      .headers = {},
      .body = encodeForm(pairs),
  };
  return caller_.call(request, readQueryError);
}

ApiResult<int> QueryClient::paginate(
    std::string_view action, const ParamPairs& params,
    const std::function<bool(const pugi::xml_document& page)>& onPage) {
  std::string token;
  int pages = 0;
  while (true) {
    ParamPairs pagePairs = params;
    if (!token.empty()) {
      pagePairs.emplace_back("NextToken", token);
    }
    auto body = call(action, pagePairs);
    if (!body) {
      return tl::unexpected(body.error());
    }
    pugi::xml_document doc;
    if (!doc.load_buffer(body->data(), body->size())) {
      return apiFail("MalformedResponse", fmt::format("{}: page {} is not XML", action, pages + 1),
                     200);
    }
    ++pages;
    if (!onPage(doc)) {
      return pages;
    }
    const std::string next = doc.document_element().child_value("nextToken");
    if (next.empty()) {
      return pages;
    }
    // A service that hands back the token it was given would keep us here forever.
    if (next == token) {
      return apiFail("PaginationLoop",
                     fmt::format("{}: page {} returned the NextToken it was sent", action, pages),
                     200);
    }
    token = next;
  }
}

}  // namespace nodewright::aws
