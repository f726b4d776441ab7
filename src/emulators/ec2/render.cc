#include "emulators/ec2/render.h"

#include <algorithm>

#include <fmt/format.h>

#include "aws/xml.h"
#include "core/hex.h"

namespace nodewright::emulators::ec2 {
namespace {

// Tokens carry this prefix, hex-encoded with the key, so a token from elsewhere (or a key
// typed by hand) is rejected instead of silently starting somewhere odd.
constexpr std::string_view kTokenPrefix = "nw1:";

std::optional<std::string> decodeNextToken(std::string_view token) {
  auto text = core::hexDecode(token);
  if (!text || !text->starts_with(kTokenPrefix) || text->size() == kTokenPrefix.size()) {
    return std::nullopt;
  }
  return text->substr(kTokenPrefix.size());
}

}  // namespace

void addTagSet(pugi::xml_node parent, const Tags& tags) {
  if (tags.empty()) {
    return;
  }
  pugi::xml_node set = aws::xml::addElement(parent, "tagSet");
  for (const Tag& tag : tags) {
    pugi::xml_node item = aws::xml::addItem(set);
    aws::xml::addText(item, "key", tag.key);
    aws::xml::addText(item, "value", tag.value);
  }
}

aws::ApiResult<PageRequest> parsePageRequest(const aws::Params& params, int64_t min, int64_t max) {
  PageRequest page;
  auto maxResults = params.optInteger("MaxResults");
  if (!maxResults) {
    return tl::unexpected(maxResults.error());
  }
  if (*maxResults) {
    const int64_t value = **maxResults;
    // Source: EC2's reply to MaxResults=1 on DescribeInstances ("Value ( 1 ) for parameter
    // maxResults is invalid. Expecting a value greater than 5."). GUESS: the upper bound's.
    if (value < min) {
      return aws::apiFail("InvalidParameterValue",
                          fmt::format("Value ( {} ) for parameter maxResults is invalid. Expecting "
                                      "a value greater than {}.",
                                      value, min));
    }
    if (value > max) {
      return aws::apiFail("InvalidParameterValue",
                          fmt::format("Value ( {} ) for parameter maxResults is invalid. Expecting "
                                      "a value less than {}.",
                                      value, max));
    }
    page.limit = static_cast<size_t>(value);
  }
  if (auto token = params.find("NextToken"); token) {
    auto after = decodeNextToken(*token);
    // Source: EC2's reply to DescribeVpcs with NextToken="" (boto/boto3#2673).
    if (!after) {
      return aws::apiFail(
          "InvalidParameterValue",
          fmt::format("Value ( {} ) for parameter NextToken is invalid. The token is invalid.",
                      *token));
    }
    page.after = std::move(*after);
  }
  return page;
}

std::string encodeNextToken(std::string_view after) {
  std::string text(kTokenPrefix);
  text += after;
  return core::hexEncode(text);
}

void addNextToken(pugi::xml_node parent, std::string_view after) {
  if (!after.empty()) {
    aws::xml::addText(parent, "nextToken", encodeNextToken(after));
  }
}

PageSlice slicePage(const std::vector<std::string>& keys, std::string_view after, size_t limit) {
  PageSlice slice;
  slice.begin =
      after.empty()
          ? 0
          : static_cast<size_t>(std::upper_bound(keys.begin(), keys.end(), after) - keys.begin());
  slice.end = keys.size();
  if (limit > 0 && keys.size() - slice.begin > limit) {
    slice.end = slice.begin + limit;
    slice.nextAfter = keys[slice.end - 1];
  }
  return slice;
}

aws::ApiResult<void> checkDryRun(const aws::Params& params) {
  auto dryRun = params.optBoolean("DryRun");
  if (!dryRun) {
    return tl::unexpected(dryRun.error());
  }
  if (dryRun->value_or(false)) {
    // Source: EC2's reply to DescribeInstances with DryRun=true (getmoto/moto#1980).
    return aws::apiFail("DryRunOperation", "Request would have succeeded, but DryRun flag is set.",
                        412);
  }
  return {};
}

std::string joinIds(const std::vector<std::string>& ids) {
  return fmt::format("{}", fmt::join(ids, ", "));
}

}  // namespace nodewright::emulators::ec2
