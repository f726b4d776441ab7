// DescribeAvailabilityZones from the world, and DescribeVpcs, DescribeSubnets and
// DescribeSecurityGroups from the resources the world seeded in the store.
#include <initializer_list>
#include <set>

#include <fmt/format.h>

#include "aws/xml.h"
#include "core/hash.h"
#include "emulators/ec2/describe_actions.h"
#include "emulators/ec2/resources.h"
#include "emulators/ec2/xml_names.h"

namespace nodewright::emulators::ec2 {
namespace {

constexpr int64_t kMinResults = 5, kMaxResults = 1000;

std::string boolText(bool value) {
  return value ? "true" : "false";
}

std::string stateOf(const Resource& r) {
  return r.state.empty() ? "available" : r.state;
}

// A stable id for a sub-object the store does not keep (a CIDR association, DHCP options):
// the same resource always shows the same one.
std::string derivedId(std::string_view prefix, std::string_view of) {
  core::Hasher h;
  h.addString(prefix);
  h.addString(of);
  return fmt::format("{}-{:017x}", prefix, h.value() & 0xfffffffffffffffULL);
}

std::string arn(const World& world, std::string_view type, std::string_view id) {
  return fmt::format("arn:aws:ec2:{}:{}:{}/{}", world.region, world.accountId, type, id);
}

void addCidrBlockState(pugi::xml_node parent, const char* name) {
  addText(addElement(parent, name), "state", "associated");
}

// One Describe* action over a kind of stored resource: its id list, the code and noun of its
// not-found error ("The <noun> '<id>' does not exist"), its list element, and how a resource
// answers filters and renders.
struct StoredAction {
  std::string_view kind;
  std::string_view idParam;
  const char* notFoundCode;
  const char* noun;
  const char* listName;
  std::vector<std::string> (*values)(const World&, const Resource&, std::string_view);
  void (*render)(pugi::xml_node, const World&, const Resource&);
  // Adds ids the request names otherwise (GroupName.N); may be null.
  aws::ApiResult<std::vector<std::string>> (*moreIds)(ActionContext&) = nullptr;
};

aws::ApiResult<std::string> describeStored(ActionContext& ctx, const StoredAction& action,
                                           std::initializer_list<std::string_view> filters) {
  auto request =
      parseDescribeRequest(ctx.params, action.idParam, filters, kMinResults, kMaxResults);
  if (!request) {
    return tl::unexpected(request.error());
  }
  ResourceStore& store = ctx.engine.store();
  if (auto missing = missingIds(store, action.kind, request->ids); !missing.empty()) {
    // Source: EC2's message for one missing subnet (jschementi/riker#42). GUESS: the same for
    // VPCs and groups, and with several missing it names the first.
    return aws::apiFail(action.notFoundCode,
                        fmt::format("The {} '{}' does not exist", action.noun, missing.front()));
  }
  if (action.moreIds) {
    auto more = action.moreIds(ctx);
    if (!more) {
      return tl::unexpected(more.error());
    }
    request->ids.insert(request->ids.end(), more->begin(), more->end());
  }
  if (auto ok = checkDryRun(ctx.params); !ok) {
    return tl::unexpected(ok.error());
  }
  const World& world = ctx.world;
  Page page = findResources(store, action.kind, *request,
                            [&](const Resource& r, auto n) { return action.values(world, r, n); });
  return pageResponse(ctx, action.listName, page, [&](pugi::xml_node item, const Resource& r) {
    action.render(item, world, r);
  });
}

// ---- DescribeAvailabilityZones

aws::ApiResult<std::string> describeAvailabilityZones(ActionContext& ctx) {
  auto names = ctx.params.strings("ZoneName");
  auto ids = ctx.params.strings("ZoneId");
  if (!names || !ids) {
    return tl::unexpected(!names ? names.error() : ids.error());
  }
  auto filters = parseFilters(ctx.params);
  if (!filters) {
    return tl::unexpected(filters.error());
  }
  if (auto ok = checkFilterNames(*filters,
                                 {"zone-name", "zone-id", "state", "region-name", "zone-type",
                                  "group-name", "opt-in-status", "network-border-group"},
                                 /*withTags=*/false);
      !ok) {
    return tl::unexpected(ok.error());
  }
  std::vector<std::string> unknown;
  for (const std::string& name : *names) {
    if (!ctx.world.zone(name)) {
      unknown.push_back(name);
    }
  }
  for (const std::string& id : *ids) {
    if (std::none_of(ctx.world.zones.begin(), ctx.world.zones.end(),
                     [&](const ZoneConfig& z) { return z.zoneId == id; })) {
      unknown.push_back(id);
    }
  }
  if (!unknown.empty()) {
    // GUESS: code and message.
    return aws::apiFail("InvalidParameterValue",
                        "Invalid availability zone: [" + joinIds(unknown) + "]");
  }
  if (auto ok = checkDryRun(ctx.params); !ok) {
    return tl::unexpected(ok.error());
  }
  const std::set<std::string> nameSet(names->begin(), names->end());
  const std::set<std::string> idSet(ids->begin(), ids->end());
  aws::xml::Ec2Response response(ctx.action, ctx.requestId);
  pugi::xml_node list = addElement(response.root(), "availabilityZoneInfo");
  for (const ZoneConfig& zone : ctx.world.zones) {
    if ((!nameSet.empty() || !idSet.empty()) && !nameSet.count(zone.name) &&
        !idSet.count(zone.zoneId)) {
      continue;
    }
    auto values = [&](std::string_view n) -> std::vector<std::string> {
      if (n == "zone-name") {
        return {zone.name};
      }
      if (n == "zone-id") {
        return {zone.zoneId};
      }
      if (n == "state") {
        return {"available"};
      }
      if (n == "region-name" || n == "group-name" || n == "network-border-group") {
        return {ctx.world.region};
      }
      if (n == "zone-type") {
        return {"availability-zone"};
      }
      if (n == "opt-in-status") {
        return {"opt-in-not-required"};
      }
      return {};
    };
    if (!matchesFilters(*filters, {}, values)) {
      continue;
    }
    pugi::xml_node item = addItem(list);
    addText(item, "optInStatus", "opt-in-not-required");
    addElement(item, "messageSet");
    addText(item, "regionName", ctx.world.region);
    addText(item, "zoneName", zone.name);
    addText(item, "zoneId", zone.zoneId);
    addText(item, "groupName", ctx.world.region);
    addText(item, "networkBorderGroup", ctx.world.region);
    addText(item, "zoneType", "availability-zone");
    addText(item, "zoneState", "available");
  }
  return response.str();
}

// ---- DescribeVpcs

std::vector<std::string> vpcValues(const World& world, const Resource& r, std::string_view n) {
  const auto* a = r.as<VpcAttributes>();
  if (!a) {
    return {};
  }
  if (n == "vpc-id") {
    return {r.id};
  }
  if (n == "cidr" || n == "cidr-block-association.cidr-block") {
    return {a->cidrBlock};
  }
  if (n == "cidr-block-association.state") {
    return {"associated"};
  }
  if (n == "ipv6-cidr-block-association.ipv6-cidr-block") {
    return a->ipv6CidrBlock.empty() ? std::vector<std::string>{}
                                    : std::vector<std::string>{a->ipv6CidrBlock};
  }
  if (n == "is-default") {
    return {boolText(a->isDefault)};
  }
  if (n == "state") {
    return {stateOf(r)};
  }
  if (n == "owner-id") {
    return {world.accountId};
  }
  if (n == "dhcp-options-id") {
    return {derivedId("dopt", r.id)};
  }
  return {};
}

void addVpc(pugi::xml_node item, const World& world, const Resource& r) {
  const auto* a = r.as<VpcAttributes>();
  addText(item, "vpcId", r.id);
  addText(item, "ownerId", world.accountId);
  addText(item, "state", stateOf(r));
  addText(item, "cidrBlock", a ? a->cidrBlock : "");
  pugi::xml_node cidrs = addElement(item, "cidrBlockAssociationSet");
  if (a) {
    pugi::xml_node cidr = addItem(cidrs);
    addText(cidr, "cidrBlock", a->cidrBlock);
    addText(cidr, "associationId", derivedId("vpc-cidr-assoc", r.id));
    addCidrBlockState(cidr, "cidrBlockState");
  }
  pugi::xml_node ipv6 = addElement(item, "ipv6CidrBlockAssociationSet");
  if (a && !a->ipv6CidrBlock.empty()) {
    pugi::xml_node assoc = addItem(ipv6);
    addText(assoc, "associationId", derivedId("vpc-cidr-assoc", r.id + "/ipv6"));
    addText(assoc, "ipv6CidrBlock", a->ipv6CidrBlock);
    addCidrBlockState(assoc, "ipv6CidrBlockState");
    addText(assoc, "networkBorderGroup", world.region);
    addText(assoc, "ipv6Pool", "Amazon");
  }
  addText(item, "dhcpOptionsId", derivedId("dopt", r.id));
  addText(item, "instanceTenancy", "default");
  addBool(item, "isDefault", a && a->isDefault);
  addTagSet(item, r.tags);
}

aws::ApiResult<std::string> describeVpcs(ActionContext& ctx) {
  static constexpr StoredAction kAction{
      kind::kVpc, "VpcId", "InvalidVpcID.NotFound", "vpc ID", "vpcSet", vpcValues, addVpc};
  return describeStored(
      ctx, kAction,
      {"vpc-id", "cidr", "cidr-block-association.cidr-block", "cidr-block-association.state",
       "ipv6-cidr-block-association.ipv6-cidr-block", "is-default", "state", "owner-id",
       "dhcp-options-id"});
}

// ---- DescribeSubnets

std::vector<std::string> subnetValues(const World& world, const Resource& r, std::string_view n) {
  const auto* a = r.as<SubnetAttributes>();
  if (!a) {
    return {};
  }
  if (n == "subnet-id") {
    return {r.id};
  }
  if (n == "subnet-arn") {
    return {arn(world, "subnet", r.id)};
  }
  if (n == "vpc-id") {
    return {a->vpcId};
  }
  if (n == "availability-zone" || n == "availabilityZone") {
    return {a->zone};
  }
  if (n == "availability-zone-id" || n == "availabilityZoneId") {
    return {a->zoneId};
  }
  if (n == "cidr-block" || n == "cidr" || n == "cidrBlock") {
    return {a->cidrBlock};
  }
  if (n == "ipv6-cidr-block-association.ipv6-cidr-block") {
    return a->ipv6CidrBlock.empty() ? std::vector<std::string>{}
                                    : std::vector<std::string>{a->ipv6CidrBlock};
  }
  if (n == "state") {
    return {stateOf(r)};
  }
  if (n == "available-ip-address-count") {
    return {std::to_string(a->availableIps)};
  }
  if (n == "map-public-ip-on-launch") {
    return {boolText(a->mapPublicIpOnLaunch)};
  }
  if (n == "default-for-az" || n == "defaultForAz") {
    return {"false"};
  }
  if (n == "owner-id") {
    return {world.accountId};
  }
  return {};
}

void addSubnet(pugi::xml_node item, const World& world, const Resource& r) {
  const auto* a = r.as<SubnetAttributes>();
  if (!a) {
    return;
  }
  addText(item, "subnetId", r.id);
  addText(item, "subnetArn", arn(world, "subnet", r.id));
  addText(item, "state", stateOf(r));
  addText(item, "ownerId", world.accountId);
  addText(item, "vpcId", a->vpcId);
  addText(item, "cidrBlock", a->cidrBlock);
  pugi::xml_node ipv6 = addElement(item, "ipv6CidrBlockAssociationSet");
  if (!a->ipv6CidrBlock.empty()) {
    pugi::xml_node assoc = addItem(ipv6);
    addText(assoc, "ipv6CidrBlock", a->ipv6CidrBlock);
    addText(assoc, "associationId", derivedId("subnet-cidr-assoc", r.id));
    addCidrBlockState(assoc, "ipv6CidrBlockState");
  }
  addInt(item, "availableIpAddressCount", a->availableIps);
  addText(item, "availabilityZone", a->zone);
  addText(item, "availabilityZoneId", a->zoneId);
  addBool(item, "defaultForAz", false);
  addBool(item, "mapPublicIpOnLaunch", a->mapPublicIpOnLaunch);
  addBool(item, "assignIpv6AddressOnCreation", false);
  addBool(item, "ipv6Native", false);
  // EC2's defaults for a subnet made without hostname options.
  pugi::xml_node dns = addElement(item, "privateDnsNameOptionsOnLaunch");
  addText(dns, "hostnameType", "ip-name");
  addBool(dns, "enableResourceNameDnsARecord", false);
  addBool(dns, "enableResourceNameDnsAAAARecord", false);
  addTagSet(item, r.tags);
}

aws::ApiResult<std::string> describeSubnets(ActionContext& ctx) {
  static constexpr StoredAction kAction{kind::kSubnet, "SubnetId",  "InvalidSubnetID.NotFound",
                                        "subnet ID",   "subnetSet", subnetValues,
                                        addSubnet};
  return describeStored(
      ctx, kAction,
      {"subnet-id", "subnet-arn", "vpc-id", "availability-zone", "availabilityZone",
       "availability-zone-id", "availabilityZoneId", "cidr-block", "cidr", "cidrBlock",
       "ipv6-cidr-block-association.ipv6-cidr-block", "state", "available-ip-address-count",
       "map-public-ip-on-launch", "default-for-az", "defaultForAz", "owner-id"});
}

// ---- DescribeSecurityGroups

std::vector<std::string> groupValues(const World& world, const Resource& r, std::string_view n) {
  const auto* a = r.as<SecurityGroupAttributes>();
  if (!a) {
    return {};
  }
  if (n == "group-id") {
    return {r.id};
  }
  if (n == "group-name") {
    return {a->name};
  }
  if (n == "vpc-id") {
    return {a->vpcId};
  }
  if (n == "description") {
    return {a->description};
  }
  if (n == "owner-id") {
    return {world.accountId};
  }
  return {};
}

void addSecurityGroup(pugi::xml_node item, const World& world, const Resource& r) {
  const auto* a = r.as<SecurityGroupAttributes>();
  if (!a) {
    return;
  }
  addText(item, "ownerId", world.accountId);
  addText(item, "groupId", r.id);
  addText(item, "groupName", a->name);
  addText(item, "groupDescription", a->description);
  addText(item, "vpcId", a->vpcId);
  addText(item, "securityGroupArn", arn(world, "security-group", r.id));
  addElement(item, "ipPermissions");
  // The rule EC2 gives every new group: all traffic out, over IPv6 too in an IPv6 VPC.
  pugi::xml_node egress = addItem(addElement(item, "ipPermissionsEgress"));
  addText(egress, "ipProtocol", "-1");
  addElement(egress, "groups");
  addText(addItem(addElement(egress, "ipRanges")), "cidrIp", "0.0.0.0/0");
  pugi::xml_node ipv6 = addElement(egress, "ipv6Ranges");
  if (a->ipv6Egress) {
    addText(addItem(ipv6), "cidrIpv6", "::/0");
  }
  addElement(egress, "prefixListIds");
  addTagSet(item, r.tags);
}

// GroupName.N names groups of the default VPC only, as on EC2 since EC2-Classic's end.
aws::ApiResult<std::vector<std::string>> groupIdsByName(ResourceStore& store,
                                                        const std::vector<std::string>& names) {
  std::vector<Resource> vpcs = store.list(kind::kVpc, [](const Resource& r) {
    const auto* a = r.as<VpcAttributes>();
    return r.live() && a && a->isDefault;
  });
  if (vpcs.empty()) {
    // GUESS: code and message, from memory of EC2's reply in an account without a default VPC.
    return aws::apiFail("VPCIdNotSpecified", "No default VPC for this user");
  }
  const std::string vpcId = vpcs.front().id;
  std::vector<std::string> ids;
  for (const std::string& name : names) {
    std::vector<Resource> found = store.list(kind::kSecurityGroup, [&](const Resource& r) {
      const auto* a = r.as<SecurityGroupAttributes>();
      return r.live() && a && a->vpcId == vpcId && a->name == name;
    });
    if (found.empty()) {
      // GUESS: the message.
      return aws::apiFail(
          "InvalidGroup.NotFound",
          fmt::format("The security group '{}' does not exist in default VPC '{}'", name, vpcId));
    }
    ids.push_back(found.front().id);
  }
  return ids;
}

aws::ApiResult<std::vector<std::string>> groupIdsOfNames(ActionContext& ctx) {
  auto names = ctx.params.strings("GroupName");
  if (!names) {
    return tl::unexpected(names.error());
  }
  return names->empty() ? std::vector<std::string>{} : groupIdsByName(ctx.engine.store(), *names);
}

aws::ApiResult<std::string> describeSecurityGroups(ActionContext& ctx) {
  static constexpr StoredAction kAction{
      kind::kSecurityGroup, "GroupId",   "InvalidGroup.NotFound", "security group",
      "securityGroupInfo",  groupValues, addSecurityGroup,        groupIdsOfNames};
  return describeStored(ctx, kAction,
                        {"group-id", "group-name", "vpc-id", "description", "owner-id"});
}

}  // namespace

void addNetworkActions(ActionTable& table) {
  table["DescribeAvailabilityZones"] = {bucket::kDescribe, describeAvailabilityZones};
  table["DescribeVpcs"] = {bucket::kDescribe, describeVpcs};
  table["DescribeSubnets"] = {bucket::kDescribe, describeSubnets};
  table["DescribeSecurityGroups"] = {bucket::kDescribe, describeSecurityGroups};
}

}  // namespace nodewright::emulators::ec2
