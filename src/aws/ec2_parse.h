#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <pugixml.hpp>

#include "aws/ec2_types.h"
#include "aws/error.h"
#include "aws/query.h"
#include "aws/query_client.h"

// Reads EC2's Query-protocol response elements (Version 2016-11-15) into the plain shapes of
// ec2_types.h. Each takes one <item> of its list; missing elements leave the field at its
// default, so a service that omits what it does not know (moto, older regions) still parses.
namespace nodewright::aws::ec2xml {

// The texts of a list element's children, whatever their name: EC2 writes most list members
// as <item>, a few (launch-template groupSet) as <groupId>.
std::vector<std::string> strings(pugi::xml_node list);
// <tagSet><item><key/><value/></item>...</tagSet> below `parent`.
Tags tags(pugi::xml_node parent);

InstanceTypeInfo instanceType(pugi::xml_node item);
InstanceTypeOffering instanceTypeOffering(pugi::xml_node item);
AvailabilityZone availabilityZone(pugi::xml_node item);
Subnet subnet(pugi::xml_node item);
SecurityGroup securityGroup(pugi::xml_node item);
Image image(pugi::xml_node item);
SpotPrice spotPrice(pugi::xml_node item);
LaunchTemplate launchTemplate(pugi::xml_node item);
// The <launchTemplateData> of DescribeLaunchTemplateVersions (tests read templates back).
LaunchTemplateData launchTemplateData(pugi::xml_node data);
Instance instance(pugi::xml_node item);
CapacityReservation capacityReservation(pugi::xml_node item);
PlacementGroup placementGroup(pugi::xml_node item);
InstanceStateChange stateChange(pugi::xml_node item);
// CreateFleetResponse's root; the launched group's zone, when the response leaves it out, is
// taken from the request's override of the same type and subnet.
FleetResult fleetResult(pugi::xml_node root, const FleetRequest& request);

}  // namespace nodewright::aws::ec2xml

namespace nodewright::aws::ec2xml {

// Every page of `action`: `read` takes each page's root element and appends what it holds.
template <class T, class Read>
ApiResult<std::vector<T>> collect(QueryClient& client, std::string_view action,
                                  const ParamPairs& params, Read read) {
  std::vector<T> out;
  auto pages = client.paginate(action, params, [&](const pugi::xml_document& page) {
    read(page.document_element(), out);
    return true;
  });
  if (!pages) {
    return tl::unexpected(pages.error());
  }
  return out;
}

// Every page of a describe action whose items sit in one list element below the root.
template <class T>
ApiResult<std::vector<T>> collectList(QueryClient& client, std::string_view action,
                                      const ParamPairs& params, const char* listName,
                                      T (*parse)(pugi::xml_node)) {
  return collect<T>(client, action, params, [&](pugi::xml_node root, std::vector<T>& out) {
    for (pugi::xml_node item : root.child(listName).children("item")) {
      out.push_back(parse(item));
    }
  });
}

}  // namespace nodewright::aws::ec2xml
