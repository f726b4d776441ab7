#include <algorithm>
#include <regex>

#include "api/capi/cidr.h"
#include "api/capz/network.h"

// NetworkSpec's schema and the rules that span its parts (subnets against the vnet, the API
// server load balancer against the control plane subnet).
namespace nodewright::api::capz {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

namespace {

// Go prints a []string as "[a b]"; the messages below follow CAPZ's.
std::string goList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    out += (i > 0 ? " " : "") + items[i];
  }
  return out + "]";
}

void validateSubnetsInVnet(const NetworkSpec& net, const FieldPath& path, FieldErrors& errors) {
  std::vector<capi::IpNetwork> vnetNetworks;
  for (const std::string& cidr : net.vnet.cidrBlocks) {
    if (auto n = capi::parseCidr(cidr)) {
      vnetNetworks.push_back(*n);
    }
  }
  if (vnetNetworks.empty()) {
    return;
  }
  for (size_t i = 0; i < net.subnets.size(); ++i) {
    const std::vector<std::string>& cidrs = net.subnets[i].cidrBlocks;
    for (size_t j = 0; j < cidrs.size(); ++j) {
      auto subnet = capi::parseCidr(cidrs[j]);
      if (!subnet) {
        continue;  // reported by the subnet itself
      }
      bool inside = std::any_of(vnetNetworks.begin(), vnetNetworks.end(),
                                [&](const capi::IpNetwork& v) { return v.contains(subnet->base); });
      if (!inside) {
        errors.push_back(
            {path.child("subnets").index(i).child("cidrBlocks").index(j).str(),
             fielderr::invalid(Json(cidrs[j]), "subnet CIDR not in vnet address space: " +
                                                   goList(net.vnet.cidrBlocks))});
      }
    }
  }
}

// The address must parse and lie in a control-plane subnet.
void validateInternalLBIPAddress(const std::string& address, const NetworkSpec& net,
                                 const FieldPath& path, FieldErrors& errors) {
  const SubnetSpec* controlPlane = net.subnetWithRole("control-plane");
  std::vector<std::string> cidrs =
      controlPlane ? controlPlane->cidrBlocks : std::vector<std::string>{};
  auto ip = capi::parseIp(address);
  if (!ip) {
    errors.push_back({path.str(), fielderr::invalid(Json(address),
                                                    "Internal LB IP address isn't a valid IPv4 "
                                                    "or IPv6 address")});
    return;
  }
  if (std::none_of(cidrs.begin(), cidrs.end(), [&](const std::string& c) {
        auto n = capi::parseCidr(c);
        return n && n->contains(*ip);
      })) {
    errors.push_back({path.str(), fielderr::invalid(Json(address),
                                                    "Internal LB IP address needs to be in "
                                                    "control plane subnet range (" +
                                                        goList(cidrs) + ")")});
  }
}

// CAPZ's rules for the API server balancer. CAPZ reports them under "frontendIPConfigs"
// (not the field's JSON name); kept for identical messages. A public balancer may carry one
// private frontend as well: CAPZ accepts that with its APIServerILB feature gate on, which
// the apiserver-ilb flavors need; unlike CAPZ with the gate on, no private frontend is added
// by default.
void validateAPIServerLB(const NetworkSpec& net, const FieldPath& path, FieldErrors& errors) {
  const LoadBalancerSpec& lb = *net.apiServerLB;
  FieldPath frontends = path.child("frontendIPConfigs");
  size_t publicIPs = 0;
  size_t privateIPs = 0;
  std::string privateIP;
  for (const FrontendIP& frontend : lb.frontendIPs) {
    if (frontend.publicIP) {
      ++publicIPs;
    }
    if (!frontend.privateIP.empty()) {
      ++privateIPs;
      privateIP = frontend.privateIP;
    }
  }
  if (lb.type == "Public") {
    if (publicIPs != 1 || lb.frontendIPsCount.value_or(1) != 1) {
      errors.push_back({frontends.str(), fielderr::invalid(Json(lb.frontendIPs.size()),
                                                           "API Server Load balancer should "
                                                           "have 1 Frontend IP")});
    }
    if (privateIPs > 0) {
      validateInternalLBIPAddress(privateIP, net, frontends.index(0).child("privateIP"), errors);
    }
  } else if (lb.type == "Internal") {
    if (publicIPs != 0) {
      errors.push_back({frontends.index(0).child("publicIP").str(),
                        fielderr::forbidden("Internal Load Balancers cannot have a Public IP")});
    }
    if (privateIPs != 1) {
      errors.push_back({frontends.str(), fielderr::invalid(Json(lb.frontendIPs.size()),
                                                           "API Server Load balancer of type "
                                                           "private should have 1 frontend "
                                                           "private IP")});
    } else {
      validateInternalLBIPAddress(lb.frontendIPs[0].privateIP, net,
                                  frontends.index(0).child("privateIP"), errors);
    }
  }
}

bool isDnsName(const std::string& name) {
  static const std::regex re(
      R"(^([a-zA-Z0-9_]{1}[a-zA-Z0-9_-]{0,62}){1}(\.[a-zA-Z0-9_]{1}[a-zA-Z0-9_-]{0,62})*[\._]?$)");
  return name.size() <= 253 && std::regex_match(name, re);
}

}  // namespace

const StructSchema& describe(Tag<NetworkSpec>) {
  static const StructSchema s =
      StructBuilder<NetworkSpec>("NetworkSpec", "The Azure network of the cluster.")
          .field<&NetworkSpec::vnet>("vnet", "The virtual network.")
          .field<&NetworkSpec::subnets>("subnets",
                                        "Subnets of the network; control-plane and node at least.")
          .mapList({"name"})
          .field<&NetworkSpec::apiServerLB>("apiServerLB",
                                            "Load balancer in front of the API servers.")
          .field<&NetworkSpec::nodeOutboundLB>("nodeOutboundLB",
                                               "Load balancer for the nodes' outbound traffic.")
          .field<&NetworkSpec::controlPlaneOutboundLB>(
              "controlPlaneOutboundLB",
              "Outbound load balancer for control plane nodes of private clusters.")
          .field<&NetworkSpec::privateDNSZoneName>(
              "privateDNSZoneName", "Azure Private DNS zone of a private (internal) cluster.")
          .validate([](const NetworkSpec& net, const FieldPath& path, FieldErrors& errors) {
            validateSubnetsInVnet(net, path, errors);
            if (net.apiServerLB) {
              validateAPIServerLB(net, path.child("apiServerLB"), errors);
            }
            std::string apiServerType = net.apiServerLB ? net.apiServerLB->type : "";
            if (apiServerType == "Public" && net.controlPlaneOutboundLB) {
              errors.push_back({path.child("controlPlaneOutboundLB").str(),
                                fielderr::forbidden("Control plane outbound load balancer cannot "
                                                    "be set for public clusters.")});
            }
            if (!net.privateDNSZoneName.empty()) {
              FieldPath zone = path.child("privateDNSZoneName");
              if (apiServerType != "Internal") {
                errors.push_back({zone.str(), fielderr::invalid(Json(apiServerType),
                                                                "PrivateDNSZoneName is available "
                                                                "only if APIServerLB.Type is "
                                                                "Internal")});
              }
              if (!isDnsName(net.privateDNSZoneName)) {
                errors.push_back(
                    {zone.str(), fielderr::invalid(Json(net.privateDNSZoneName),
                                                   "PrivateDNSZoneName can only contain "
                                                   "alphanumeric characters, underscores and "
                                                   "dashes, must end with an alphanumeric "
                                                   "character")});
              }
            }
          })
          .build();
  return s;
}

}  // namespace nodewright::api::capz
