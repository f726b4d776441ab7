// Ec2Client's describe calls. Launch templates, fleets and instances: ec2_client_launch.cc.
#include <algorithm>
#include <iterator>
#include <map>
#include <utility>

#include "aws/ec2_client.h"
#include "aws/ec2_parse.h"
#include "aws/query_builder.h"
#include "aws/xml.h"

namespace nodewright::aws {
namespace {

// EC2's page maxima (MaxResults). A list of ids cannot be combined with MaxResults on some
// actions (DescribeInstances, DescribeImages), so calls by id page by EC2's default instead.
constexpr int kInstanceTypesPage = 100;
constexpr int kLargePage = 1000;
// DescribeInstanceTypes takes at most 100 names per request.
constexpr size_t kInstanceTypeNamesPerCall = 100;

void addFilters(ParamBuilder& b, const std::vector<Filter>& filters) {
  for (const Filter& f : filters) {
    b.filter(f.name, f.values);
  }
}

}  // namespace

ApiResult<std::vector<InstanceTypeInfo>> Ec2Client::describeInstanceTypes(
    const std::vector<std::string>& names) {
  if (names.empty()) {
    ParamBuilder b;
    b.set("MaxResults", kInstanceTypesPage);
    return ec2xml::collectList(client_, "DescribeInstanceTypes", b.pairs(), "instanceTypeSet",
                               &ec2xml::instanceType);
  }
  std::vector<InstanceTypeInfo> out;
  for (size_t start = 0; start < names.size(); start += kInstanceTypeNamesPerCall) {
    const size_t end = std::min(names.size(), start + kInstanceTypeNamesPerCall);
    ParamBuilder b;
    b.list("InstanceType", std::vector<std::string>(names.begin() + static_cast<ptrdiff_t>(start),
                                                    names.begin() + static_cast<ptrdiff_t>(end)));
    auto chunk = ec2xml::collectList(client_, "DescribeInstanceTypes", b.pairs(), "instanceTypeSet",
                                     &ec2xml::instanceType);
    if (!chunk) {
      return tl::unexpected(chunk.error());
    }
    std::move(chunk->begin(), chunk->end(), std::back_inserter(out));
  }
  return out;
}

ApiResult<std::vector<InstanceTypeOffering>> Ec2Client::describeInstanceTypeOfferings() {
  ParamBuilder b;
  b.set("LocationType", "availability-zone");
  b.set("MaxResults", kLargePage);
  return ec2xml::collectList(client_, "DescribeInstanceTypeOfferings", b.pairs(),
                             "instanceTypeOfferingSet", &ec2xml::instanceTypeOffering);
}

ApiResult<std::vector<AvailabilityZone>> Ec2Client::describeAvailabilityZones() {
  return ec2xml::collectList(client_, "DescribeAvailabilityZones", {}, "availabilityZoneInfo",
                             &ec2xml::availabilityZone);
}

ApiResult<std::vector<Subnet>> Ec2Client::describeSubnets(const std::vector<Filter>& filters,
                                                          const std::vector<std::string>& ids) {
  ParamBuilder b;
  b.list("SubnetId", ids);
  addFilters(b, filters);
  if (ids.empty()) {
    b.set("MaxResults", kLargePage);
  }
  return ec2xml::collectList(client_, "DescribeSubnets", b.pairs(), "subnetSet", &ec2xml::subnet);
}

ApiResult<std::vector<CapacityReservation>> Ec2Client::describeCapacityReservations(
    const std::vector<Filter>& filters, const std::vector<std::string>& ids) {
  ParamBuilder b;
  b.list("CapacityReservationId", ids);
  addFilters(b, filters);
  if (ids.empty()) {
    b.set("MaxResults", kLargePage);
  }
  return ec2xml::collectList(client_, "DescribeCapacityReservations", b.pairs(),
                             "capacityReservationSet", &ec2xml::capacityReservation);
}

ApiResult<std::vector<PlacementGroup>> Ec2Client::describePlacementGroups(
    const std::vector<Filter>& filters, const std::vector<std::string>& ids,
    const std::vector<std::string>& names) {
  ParamBuilder b;
  b.list("GroupId", ids);
  b.list("GroupName", names);
  addFilters(b, filters);
  return ec2xml::collectList(client_, "DescribePlacementGroups", b.pairs(), "placementGroupSet",
                             &ec2xml::placementGroup);
}

ApiResult<std::vector<SecurityGroup>> Ec2Client::describeSecurityGroups(
    const std::vector<Filter>& filters, const std::vector<std::string>& ids) {
  ParamBuilder b;
  b.list("GroupId", ids);
  addFilters(b, filters);
  if (ids.empty()) {
    b.set("MaxResults", kLargePage);
  }
  return ec2xml::collectList(client_, "DescribeSecurityGroups", b.pairs(), "securityGroupInfo",
                             &ec2xml::securityGroup);
}

ApiResult<std::vector<Image>> Ec2Client::describeImages(const std::vector<Filter>& filters,
                                                        const std::vector<std::string>& ids,
                                                        const std::vector<std::string>& owners) {
  ParamBuilder b;
  b.list("ImageId", ids);
  b.list("Owner", owners);
  addFilters(b, filters);
  // As Karpenter asks: EC2 hides other accounts' deprecated images otherwise, and a node class
  // whose only image is deprecated must still resolve it.
  b.set("IncludeDeprecated", true);
  if (ids.empty()) {
    b.set("MaxResults", kLargePage);
  }
  return ec2xml::collectList(client_, "DescribeImages", b.pairs(), "imagesSet", &ec2xml::image);
}

ApiResult<std::vector<SpotPrice>> Ec2Client::describeSpotPriceHistory(
    const std::vector<std::string>& instanceTypes, core::TimePoint since) {
  ParamBuilder b;
  b.list("InstanceType", instanceTypes);
  b.list("ProductDescription", {"Linux/UNIX"});
  b.set("StartTime", xml::formatTimestamp(since));
  b.set("MaxResults", kLargePage);
  auto history = ec2xml::collectList(client_, "DescribeSpotPriceHistory", b.pairs(),
                                     "spotPriceHistorySet", &ec2xml::spotPrice);
  if (!history) {
    return tl::unexpected(history.error());
  }
  // The history holds every change since `since`; a pool's price is its newest.
  std::map<std::pair<std::string, std::string>, SpotPrice> newest;
  for (SpotPrice& p : *history) {
    auto key = std::make_pair(p.instanceType, p.availabilityZone);
    auto it = newest.find(key);
    if (it == newest.end() || it->second.timestamp < p.timestamp) {
      newest[key] = std::move(p);
    }
  }
  std::vector<SpotPrice> out;
  out.reserve(newest.size());
  for (auto& [key, price] : newest) {
    out.push_back(std::move(price));
  }
  return out;
}

}  // namespace nodewright::aws
