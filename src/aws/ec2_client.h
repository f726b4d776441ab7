#pragma once

#include <string>
#include <vector>

#include "aws/ec2_types.h"
#include "aws/error.h"
#include "aws/query_client.h"

// Typed EC2 calls over a QueryClient: each serializes its request with EC2's flattened names,
// follows NextToken where the action pages, and parses the answer with pugixml. Errors are the
// service's (see error_class.h to branch on them). Thread-safe when the QueryClient is.
namespace nodewright::aws {

class Ec2Client {
 public:
  explicit Ec2Client(QueryClient& client) : client_(client) {}

  // Every page. With no names, every type the region has.
  ApiResult<std::vector<InstanceTypeInfo>> describeInstanceTypes(
      const std::vector<std::string>& names = {});
  // LocationType=availability-zone, every page.
  ApiResult<std::vector<InstanceTypeOffering>> describeInstanceTypeOfferings();
  ApiResult<std::vector<AvailabilityZone>> describeAvailabilityZones();

  ApiResult<std::vector<Subnet>> describeSubnets(const std::vector<Filter>& filters,
                                                 const std::vector<std::string>& ids = {});
  ApiResult<std::vector<SecurityGroup>> describeSecurityGroups(
      const std::vector<Filter>& filters, const std::vector<std::string>& ids = {});
  ApiResult<std::vector<Image>> describeImages(const std::vector<Filter>& filters,
                                               const std::vector<std::string>& ids = {},
                                               const std::vector<std::string>& owners = {});
  // The newest price per (type, zone) since `since`, ProductDescription Linux/UNIX. With no
  // names, every type.
  // Every page; NotFound codes (InvalidCapacityReservationId.NotFound) for an unknown id.
  ApiResult<std::vector<CapacityReservation>> describeCapacityReservations(
      const std::vector<Filter>& filters, const std::vector<std::string>& ids = {});
  // By ids (InvalidPlacementGroupId.NotFound for an unknown one), names
  // (InvalidPlacementGroup.Unknown) and/or filters; one page (EC2 does not page it).
  ApiResult<std::vector<PlacementGroup>> describePlacementGroups(
      const std::vector<Filter>& filters, const std::vector<std::string>& ids = {},
      const std::vector<std::string>& names = {});
  ApiResult<std::vector<SpotPrice>> describeSpotPriceHistory(
      const std::vector<std::string>& instanceTypes, core::TimePoint since);

  // The template, tagged with `tags` (TagSpecification ResourceType=launch-template).
  ApiResult<LaunchTemplate> createLaunchTemplate(const std::string& name,
                                                 const LaunchTemplateData& data, const Tags& tags,
                                                 const std::string& clientToken = "");
  // By name (InvalidLaunchTemplateName.NotFoundException when one is missing) or, with no
  // names, by filters (tag:KEY, launch-template-name); every page.
  ApiResult<std::vector<LaunchTemplate>> describeLaunchTemplates(
      const std::vector<std::string>& names, const std::vector<Filter>& filters = {});
  ApiResult<void> deleteLaunchTemplate(const std::string& name);

  ApiResult<FleetResult> createFleet(const FleetRequest& request);

  // By ids (InvalidInstanceID.NotFound when one is unknown) and/or filters; every page.
  ApiResult<std::vector<Instance>> describeInstances(const std::vector<std::string>& ids,
                                                     const std::vector<Filter>& filters = {});
  ApiResult<std::vector<InstanceStateChange>> terminateInstances(
      const std::vector<std::string>& ids);
  ApiResult<void> createTags(const std::vector<std::string>& resourceIds, const Tags& tags);

  QueryClient& query() { return client_; }

 private:
  QueryClient& client_;
};

}  // namespace nodewright::aws
