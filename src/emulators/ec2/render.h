#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <pugixml.hpp>

#include "aws/error.h"
#include "aws/query.h"
#include "emulators/engine/resource_store.h"

// Pieces shared by the EC2 actions' responses and requests: tag sets, MaxResults/NextToken
// paging, DryRun, and the id lists of "does not exist" errors.
namespace nodewright::emulators::ec2 {

// <tagSet><item><key>..</key><value>..</value></item>...</tagSet>, as botocore's TagList.
// Nothing when `tags` is empty: EC2 leaves the member out for untagged resources.
void addTagSet(pugi::xml_node parent, const Tags& tags);

// A request's MaxResults and NextToken. limit 0 means everything (no MaxResults).
struct PageRequest {
  size_t limit = 0;
  std::string after;  // decoded NextToken; empty on the first page
};

// InvalidParameterValue when MaxResults lies outside [min, max] or NextToken is not one this
// emulator issued.
aws::ApiResult<PageRequest> parsePageRequest(const aws::Params& params, int64_t min, int64_t max);

// The opaque NextToken for a page that ends at `after` (an id or another sort key); the
// inverse of what parsePageRequest decodes.
std::string encodeNextToken(std::string_view after);
// <nextToken> when `after` is non-empty (more pages follow); nothing on the last page.
void addNextToken(pugi::xml_node parent, std::string_view after);

// The slice of `keys` (sorted ascending, unique) for one page: the indices [begin, end) of the
// keys after `after`, at most `limit` of them (0: all), and the key to continue after (empty
// on the last page).
struct PageSlice {
  size_t begin = 0;
  size_t end = 0;
  std::string nextAfter;
};
PageSlice slicePage(const std::vector<std::string>& keys, std::string_view after, size_t limit);

// DryRun=true: the DryRunOperation error EC2 returns when the request would have succeeded
// (412). Callers check it after validating the parameters, as EC2 does.
aws::ApiResult<void> checkDryRun(const aws::Params& params);

// "a, b, c".
std::string joinIds(const std::vector<std::string>& ids);

}  // namespace nodewright::emulators::ec2
