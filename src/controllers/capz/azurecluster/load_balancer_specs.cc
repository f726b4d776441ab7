// The load balancers of an AzureCluster, as CAPZ's loadbalancers service builds them: the API
// server's (public, or internal on the control-plane subnet) with its HTTPS rule and probe, and
// the optional outbound balancers of nodes and control plane, whose outbound rule gives their
// backends SNAT through the frontends' public IPs.
#include "controllers/capz/azurecluster/services.h"
#include "controllers/capz/azurecluster/specs.h"

namespace nodewright::controllers::capz::azurecluster {
namespace {

using api::Json;
using api::capz::LoadBalancerSpec;

constexpr int kDefaultIdleTimeoutMinutes = 4;
constexpr const char* kHTTPSRule = "LBRuleHTTPS";
constexpr const char* kHTTPSProbe = "HTTPSProbe";
constexpr const char* kOutboundRule = "OutboundNATAllProtocols";

enum class Role { APIServer, NodeOutbound, ControlPlaneOutbound };

Json frontends(const ClusterContext& ctx, const LoadBalancerSpec& lb) {
  Json out = Json::array();
  const bool internal = lb.type == "Internal";
  const auto* controlPlane = ctx.network().subnetWithRole("control-plane");
  for (const auto& frontend : lb.frontendIPs) {
    Json props = Json::object();
    if (internal) {
      props["privateIPAllocationMethod"] = "Static";
      props["privateIPAddress"] = frontend.privateIP;
      if (controlPlane != nullptr) {
        props["subnet"] = {{"id", ctx.subnetId(controlPlane->name)}};
      }
    } else if (frontend.publicIP) {
      props["publicIPAddress"] = {{"id", ctx.id(kPublicIPType, frontend.publicIP->name)}};
    }
    out.push_back({{"name", frontend.name}, {"properties", std::move(props)}});
  }
  return out;
}

Json body(const ClusterContext& ctx, const LoadBalancerSpec& lb, Role role) {
  const std::string lbId = ctx.id(kLoadBalancerType, lb.name);
  const std::string poolId = lbId + "/backendAddressPools/" + lb.backendPool.name;
  const int idle = lb.idleTimeoutInMinutes.value_or(kDefaultIdleTimeoutMinutes);
  Json props = {{"frontendIPConfigurations", frontends(ctx, lb)},
                {"backendAddressPools", Json::array({{{"name", lb.backendPool.name}}})}};
  if (role == Role::APIServer && !lb.frontendIPs.empty()) {
    const int port = ctx.cluster().spec.controlPlaneEndpoint.port > 0
                         ? ctx.cluster().spec.controlPlaneEndpoint.port
                         : kDefaultAPIServerPort;
    const std::string frontendId = lbId + "/frontendIPConfigurations/" + lb.frontendIPs[0].name;
    props["probes"] = Json::array({{{"name", kHTTPSProbe},
                                    {"properties",
                                     {{"protocol", "Https"},
                                      {"requestPath", "/readyz"},
                                      {"port", port},
                                      {"intervalInSeconds", 15},
                                      {"numberOfProbes", 4}}}}});
    props["loadBalancingRules"] =
        Json::array({{{"name", kHTTPSRule},
                      {"properties",
                       {{"protocol", "Tcp"},
                        {"frontendPort", port},
                        {"backendPort", port},
                        {"idleTimeoutInMinutes", idle},
                        {"enableFloatingIP", false},
                        {"loadDistribution", "Default"},
                        {"disableOutboundSnat", lb.type != "Internal"},
                        {"frontendIPConfiguration", {{"id", frontendId}}},
                        {"backendAddressPool", {{"id", poolId}}},
                        {"probe", {{"id", lbId + "/probes/" + kHTTPSProbe}}}}}}});
  }
  if (lb.type != "Internal") {
    Json frontendIds = Json::array();
    for (const auto& frontend : lb.frontendIPs) {
      frontendIds.push_back({{"id", lbId + "/frontendIPConfigurations/" + frontend.name}});
    }
    props["outboundRules"] = Json::array({{{"name", kOutboundRule},
                                           {"properties",
                                            {{"protocol", "All"},
                                             {"idleTimeoutInMinutes", idle},
                                             {"frontendIPConfigurations", frontendIds},
                                             {"backendAddressPool", {{"id", poolId}}}}}}});
  }
  const char* tagRole = role == Role::APIServer      ? "apiserver"
                        : role == Role::NodeOutbound ? "nodeOutboundLB"
                                                     : "controlPlaneOutboundLB";
  return {{"location", ctx.location()},
          {"sku", {{"name", lb.sku.empty() ? "Standard" : lb.sku}}},
          {"properties", std::move(props)},
          {"tags", ctx.tags(tagRole, lb.name)}};
}

}  // namespace

std::vector<SpecPtr> loadBalancerSpecs(const ClusterContext& ctx) {
  std::vector<SpecPtr> out;
  auto add = [&](const std::optional<LoadBalancerSpec>& lb, Role role) {
    if (!lb || lb->name.empty()) {
      return;
    }
    out.push_back(ctx.desired(kLoadBalancersService, ctx.id(kLoadBalancerType, lb->name),
                              ctx.resourceGroup(), lb->name, body(ctx, *lb, role)));
  };
  add(ctx.network().apiServerLB, Role::APIServer);
  add(ctx.network().nodeOutboundLB, Role::NodeOutbound);
  add(ctx.network().controlPlaneOutboundLB, Role::ControlPlaneOutbound);
  return out;
}

}  // namespace nodewright::controllers::capz::azurecluster
