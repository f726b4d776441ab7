#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "aws/ec2_buckets.h"
#include "aws/error.h"
#include "aws/query.h"
#include "emulators/ec2/catalog.h"
#include "emulators/ec2/world.h"
#include "emulators/engine/engine.h"

// One EC2 Query action of the emulator. The front end (emulator.cc) has verified the signature,
// applied throttling and injected faults; the action reads its parameters and returns the body of
// <{Action}Response> (built with aws::xml::Ec2Response) or the EC2 error to send.
namespace nodewright::emulators::ec2 {

struct ActionContext {
  Engine& engine;
  const Catalog& catalog;
  const World& world;
  const aws::Params& params;
  std::string_view action;
  std::string_view requestId;
  std::string_view caller;  // the access key id that signed the request
};

using ActionHandler = std::function<aws::ApiResult<std::string>(ActionContext&)>;

// Throttling classes (their sizes: aws::ec2BucketLimits()).
namespace bucket = aws::ec2bucket;

struct ActionEntry {
  std::string_view bucketClass;
  ActionHandler handler;
};

using ActionTable = std::map<std::string, ActionEntry, std::less<>>;

// Each group of actions adds itself; defined next to the actions.
// DescribeInstanceTypes, DescribeInstanceTypeOfferings, DescribeAvailabilityZones,
// DescribeVpcs, DescribeSubnets, DescribeSecurityGroups, DescribeImages,
// DescribeSpotPriceHistory; and CopyImage, the one that writes (next to DescribeImages).
void addDescribeActions(ActionTable& table);
// CreateLaunchTemplate, DescribeLaunchTemplates, DescribeLaunchTemplateVersions,
// DeleteLaunchTemplate.
void addLaunchTemplateActions(ActionTable& table);
// RunInstances, CreateFleet, DescribeInstances, TerminateInstances, CreateTags, DeleteTags.
void addInstanceActions(ActionTable& table);
// DetachNetworkInterface: takes a secondary interface off a running instance out of band, as
// an operator (or a bug) would, so drift of a node's interfaces can be shown.
void addInterfaceActions(ActionTable& table);
// CreateCapacityReservation, DescribeCapacityReservations, CancelCapacityReservation
// (capacity_reservations.h).
void addCapacityReservationActions(ActionTable& table);
// CreatePlacementGroup, DescribePlacementGroups, DeletePlacementGroup (placement_groups.cc).
void addPlacementGroupActions(ActionTable& table);

}  // namespace nodewright::emulators::ec2
