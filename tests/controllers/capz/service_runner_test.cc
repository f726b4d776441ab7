#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "api/capz/conditions.h"
#include "controllers/capz/arm_resource.h"
#include "controllers/capz/capz_emulator_fixture.h"
#include "controllers/capz/service.h"

// ServiceRunner against the ARM emulator: which services a pass starts, in Graph and Serial
// order, futures parked and resumed across passes, failures and the delete order. Latencies:
// security groups, route tables and vnets end within the engine's window; NAT gateways (and
// the public IPs' deletes) take longer and are parked.
namespace nodewright::controllers::capz::testing {
namespace {

namespace capz = api::capz;

constexpr const char* kSubscription = "22222222-2222-2222-2222-222222222222";
constexpr const char* kGroup = "rg-runner";
constexpr auto kLong = 100s;

std::string idOf(const std::string& type, const std::string& name) {
  return resourceId(kSubscription, kGroup, type, name);
}

std::shared_ptr<const lro::ResourceSpec> spec(const std::string& service, const std::string& type,
                                              const std::string& name, api::Json body) {
  lro::ResourceRef ref;
  ref.id = idOf(type, name);
  ref.resourceGroup = kGroup;
  ref.serviceName = service;
  ref.name = name;
  body["location"] = "eastus";
  return std::make_shared<DesiredResource>(std::move(ref), std::move(body));
}

Service service(const std::string& name, const char* condition,
                std::vector<std::shared_ptr<const lro::ResourceSpec>> specs,
                std::vector<std::string> dependsOn = {}) {
  Service s;
  s.name = name;
  s.conditionType = condition;
  s.specs = std::move(specs);
  s.dependsOn = std::move(dependsOn);
  return s;
}

Service nsgs(std::vector<std::string> names) {
  std::vector<std::shared_ptr<const lro::ResourceSpec>> specs;
  for (const auto& n : names) {
    specs.push_back(spec("securitygroups", "Microsoft.Network/networkSecurityGroups", n,
                         {{"properties", {{"securityRules", api::Json::array()}}}}));
  }
  return service("securitygroups", capz::kSecurityGroupsReadyCondition, std::move(specs));
}

Service routeTables() {
  return service("routetables", capz::kRouteTablesReadyCondition,
                 {spec("routetables", "Microsoft.Network/routeTables", "rt",
                       {{"properties", api::Json::object()}})});
}

Service natGateways() {
  return service("natgateways", capz::kNATGatewaysReadyCondition,
                 {spec("natgateways", "Microsoft.Network/natGateways", "nat",
                       {{"sku", {{"name", "Standard"}}}})});
}

// The runner follows the edges it is given; these need not be ARM's.
Service publicIPs(std::vector<std::string> dependsOn) {
  return service("publicips", capz::kPublicIPsReadyCondition,
                 {spec("publicips", "Microsoft.Network/publicIPAddresses", "pip",
                       {{"sku", {{"name", "Standard"}}}})},
                 std::move(dependsOn));
}

Service vnet(std::vector<std::string> dependsOn) {
  return service(
      "virtualnetworks", capz::kVNetReadyCondition,
      {spec("virtualnetworks", "Microsoft.Network/virtualNetworks", "vnet",
            {{"properties", {{"addressSpace", {{"addressPrefixes", {"10.0.0.0/16"}}}}}}})},
      std::move(dependsOn));
}

class ServiceRunnerTest : public CapzEmulatorFixture {
 protected:
  void SetUp() override {
    LatencyTable latencies = medianLatencies();
    latencies["NatGateways"] = {kLong, 5s};
    latencies["PublicIPAddresses"] = {3s, kLong};
    startEmulator(latencies);
    auto state = client_->begin(
        lro::Verb::Put,
        cloud::azure::armtest::ref(resourceGroupId(kSubscription, kGroup), "resourcegroups"),
        {{"location", "eastus"}}, cloud::azure::armtest::kCall);
    ASSERT_TRUE(state.has_value()) << state.error().message;
    finish(*state);
  }

  // One call at a time unless a test is about concurrency: on the jumping clock, a concurrent
  // long operation's polls may carry a short call past its window, and which calls end within
  // their window would no longer be known.
  ServiceRunner runner(Order order, int parallelism = 1) {
    RunnerOptions options;
    options.order = order;
    options.parallelism = parallelism;
    return ServiceRunner(*engine_, clock_, options);
  }

  // securitygroups, routetables and natgateways are roots; publicips waits for the NAT
  // gateway, the vnet for security groups and route tables.
  std::vector<Service> graph() {
    return {nsgs({"nsg-a", "nsg-b"}), routeTables(), natGateways(), publicIPs({"natgateways"}),
            vnet({"securitygroups", "routetables"})};
  }

  int64_t puts(const std::string& type, const std::string& name) {
    return putsOf(idOf(type, name));
  }

  api::capz::Futures futures_;
  std::vector<api::capi::CapiCondition> conditions_;
};

TEST_F(ServiceRunnerTest, GraphStartsIndependentServicesInOnePassWhileADependentWaits) {
  ServiceRunner r = runner(Order::Graph);
  Pass pass = r.reconcile(graph(), futures_, conditions_);

  EXPECT_FALSE(pass.done);
  EXPECT_FALSE(pass.failed);
  // The vnet's prerequisites ended Done in this pass, so it started in it too.
  EXPECT_EQ(namesOf(pass), (std::vector<std::string>{"securitygroups", "routetables", "natgateways",
                                                     "virtualnetworks"}));
  EXPECT_EQ(kindOf(pass, "securitygroups"), Kind::Done);
  EXPECT_EQ(kindOf(pass, "routetables"), Kind::Done);
  EXPECT_EQ(kindOf(pass, "virtualnetworks"), Kind::Done);
  EXPECT_EQ(kindOf(pass, "natgateways"), Kind::NotDone);
  ASSERT_TRUE(pass.requeueAfter.has_value());
  EXPECT_GE(*pass.requeueAfter, 1s);
  EXPECT_EQ(puts("Microsoft.Network/publicIPAddresses", "pip"), 0) << "publicips waited";

  // Both security groups, the route table and the vnet, by id.
  EXPECT_EQ(pass.results.size(), 4u);
  ASSERT_EQ(futures_.size(), 1u);
  EXPECT_EQ(futures_[0].serviceName, "natgateways");
  EXPECT_EQ(futures_[0].type, "PUT");

  const auto* nat = find(conditions_, capz::kNATGatewaysReadyCondition);
  ASSERT_NE(nat, nullptr);
  EXPECT_EQ(nat->status, "False");
  EXPECT_EQ(nat->reason, capz::kCreatingReason);
  const auto* nsg = find(conditions_, capz::kSecurityGroupsReadyCondition);
  ASSERT_NE(nsg, nullptr);
  EXPECT_EQ(nsg->status, "True");
  EXPECT_EQ(find(conditions_, capz::kPublicIPsReadyCondition), nullptr)
      << "a service that did not start sets no condition";
}

TEST_F(ServiceRunnerTest, ParkedFuturesAreResumedWithoutASecondPut) {
  ServiceRunner r = runner(Order::Graph);
  ASSERT_FALSE(r.reconcile(graph(), futures_, conditions_).done);
  ASSERT_EQ(futures_.size(), 1u);

  clock_.advance(kLong);
  Pass pass = r.reconcile(graph(), futures_, conditions_);

  EXPECT_TRUE(pass.done);
  EXPECT_FALSE(pass.requeueAfter.has_value());
  EXPECT_TRUE(futures_.empty());
  EXPECT_EQ(puts("Microsoft.Network/natGateways", "nat"), 1) << "the parked PUT was resumed";
  // Up to date: nothing sent again.
  EXPECT_EQ(puts("Microsoft.Network/networkSecurityGroups", "nsg-a"), 1);
  EXPECT_EQ(puts("Microsoft.Network/publicIPAddresses", "pip"), 1);
  for (const auto& c : conditions_) {
    EXPECT_EQ(c.status, "True") << c.type;
  }
  const std::string natId = idOf("Microsoft.Network/natGateways", "nat");
  EXPECT_TRUE(std::any_of(pass.results.begin(), pass.results.end(),
                          [&](const auto& r) { return r.first == natId; }));
}

TEST_F(ServiceRunnerTest, SerialStartsOneServiceAtATime) {
  ServiceRunner r = runner(Order::Serial);
  std::vector<Service> services = {natGateways(), nsgs({"nsg-a"}), routeTables()};

  Pass first = r.reconcile(services, futures_, conditions_);

  EXPECT_EQ(namesOf(first), std::vector<std::string>{"natgateways"});
  EXPECT_EQ(puts("Microsoft.Network/networkSecurityGroups", "nsg-a"), 0);

  clock_.advance(kLong);
  Pass second = r.reconcile(services, futures_, conditions_);
  EXPECT_TRUE(second.done);
  EXPECT_EQ(namesOf(second),
            (std::vector<std::string>{"natgateways", "securitygroups", "routetables"}));
  EXPECT_EQ(puts("Microsoft.Network/natGateways", "nat"), 1);
}

TEST_F(ServiceRunnerTest, ResourcesOfOneServiceRunConcurrently) {
  std::vector<Service> services = {service("natgateways", capz::kNATGatewaysReadyCondition,
                                           {spec("natgateways", "Microsoft.Network/natGateways",
                                                 "nat-1", {{"sku", {{"name", "Standard"}}}}),
                                            spec("natgateways", "Microsoft.Network/natGateways",
                                                 "nat-2", {{"sku", {{"name", "Standard"}}}}),
                                            spec("natgateways", "Microsoft.Network/natGateways",
                                                 "nat-3", {{"sku", {{"name", "Standard"}}}})})};

  const auto began = clock_.steadyNow();
  Pass pass = runner(Order::Graph, 8).reconcile(services, futures_, conditions_);
  const auto took = clock_.steadyNow() - began;

  EXPECT_EQ(kindOf(pass, "natgateways"), Kind::NotDone);
  EXPECT_EQ(futures_.size(), 3u) << "every gateway was begun and parked";
  // Three windows, overlapped: about one.
  EXPECT_LT(took, 2 * kWindow);
}

TEST_F(ServiceRunnerTest, AFailedOperationEndsThePassFailed) {
  ASSERT_NO_FATAL_FAILURE(putFaults(R"({"errors": {"RouteTables_CreateOrUpdate": [
      {"code": "RouteTableLimitReached", "message": "too many route tables",
       "probability": 1}]}})"));

  Pass pass = runner(Order::Graph).reconcile(graph(), futures_, conditions_);

  EXPECT_TRUE(pass.failed);
  EXPECT_FALSE(pass.done);
  EXPECT_EQ(kindOf(pass, "routetables"), Kind::Failed);
  EXPECT_NE(pass.failureMessage.find("rg-runner/rt (routetables)"), std::string::npos)
      << pass.failureMessage;
  EXPECT_NE(pass.failureMessage.find("RouteTableLimitReached"), std::string::npos);
  EXPECT_FALSE(kindOf(pass, "virtualnetworks").has_value()) << "its prerequisite failed";
  const auto* rt = find(conditions_, capz::kRouteTablesReadyCondition);
  ASSERT_NE(rt, nullptr);
  EXPECT_EQ(rt->status, "False");
  EXPECT_EQ(rt->reason, capz::kFailedReason);
  EXPECT_EQ(rt->message, pass.failureMessage);
}

// A spec that reads a field of the wrong type, as a json value()/at() on a bad body would.
class ThrowingResource final : public lro::ResourceSpec {
 public:
  explicit ThrowingResource(lro::ResourceRef ref) : ref_(std::move(ref)) {}
  lro::ResourceRef resource() const override { return ref_; }
  core::Result<std::optional<api::Json>> parameters(const api::Json&) const override {
    api::Json notAnObject = api::Json::array();
    return std::optional<api::Json>(notAnObject.at("properties"));  // throws type_error
  }

 private:
  lro::ResourceRef ref_;
};

TEST_F(ServiceRunnerTest, ASpecWhoseParametersThrowIsAnErrorNamingTheResource) {
  lro::ResourceRef ref;
  ref.id = idOf("Microsoft.Network/routeTables", "rt-bad");
  ref.resourceGroup = kGroup;
  ref.serviceName = "routetables";
  ref.name = "rt-bad";
  std::vector<Service> services = {service("routetables", capz::kRouteTablesReadyCondition,
                                           {std::make_shared<ThrowingResource>(ref)}),
                                   nsgs({"nsg-a"})};

  Pass pass = runner(Order::Graph, 2).reconcile(services, futures_, conditions_);

  EXPECT_FALSE(pass.done);
  ASSERT_EQ(kindOf(pass, "routetables"), Kind::Error);
  EXPECT_EQ(kindOf(pass, "securitygroups"), Kind::Done) << "the other service is unaffected";
  const auto* rt = find(conditions_, capz::kRouteTablesReadyCondition);
  ASSERT_NE(rt, nullptr);
  EXPECT_EQ(rt->status, "False");
  EXPECT_NE(rt->message.find("rg-runner/rt-bad (routetables)"), std::string::npos) << rt->message;
}

TEST_F(ServiceRunnerTest, GraphRemoveDeletesAServiceOnceItsDependentsAreGone) {
  ServiceRunner r = runner(Order::Graph);
  std::vector<Pass> created = runToEnd(r, graph(), futures_, conditions_, false);
  ASSERT_TRUE(created.back().done);

  // publicips (deleted slowly) depends on natgateways; the vnet on security groups and routes.
  Pass first = r.remove(graph(), futures_, conditions_);

  EXPECT_EQ(namesOf(first), (std::vector<std::string>{"securitygroups", "routetables", "publicips",
                                                      "virtualnetworks"}));
  EXPECT_EQ(kindOf(first, "publicips"), Kind::NotDone);
  EXPECT_EQ(kindOf(first, "virtualnetworks"), Kind::Done);
  EXPECT_EQ(kindOf(first, "securitygroups"), Kind::Done);
  EXPECT_TRUE(exists(idOf("Microsoft.Network/natGateways", "nat")));
  const auto* pip = find(conditions_, capz::kPublicIPsReadyCondition);
  ASSERT_NE(pip, nullptr);
  EXPECT_EQ(pip->reason, capz::kDeletingReason);
  const auto* vnetCondition = find(conditions_, capz::kVNetReadyCondition);
  ASSERT_NE(vnetCondition, nullptr);
  EXPECT_EQ(vnetCondition->reason, capz::kDeletedReason);

  clock_.advance(kLong);
  Pass second = r.remove(graph(), futures_, conditions_);
  EXPECT_TRUE(second.done);
  EXPECT_EQ(kindOf(second, "natgateways"), Kind::Done);
  EXPECT_FALSE(exists(idOf("Microsoft.Network/natGateways", "nat")));
  EXPECT_FALSE(exists(idOf("Microsoft.Network/publicIPAddresses", "pip")));
  EXPECT_TRUE(futures_.empty());
}

TEST_F(ServiceRunnerTest, SerialRemoveGoesInReverseAndSkipsSkipDelete) {
  ServiceRunner r = runner(Order::Serial);
  std::vector<Service> services = {nsgs({"nsg-a"}), routeTables(), publicIPs({})};
  services[0].skipDelete = true;
  ASSERT_TRUE(runToEnd(r, services, futures_, conditions_, false).back().done);

  Pass first = r.remove(services, futures_, conditions_);
  EXPECT_EQ(namesOf(first), std::vector<std::string>{"publicips"});
  EXPECT_TRUE(exists(idOf("Microsoft.Network/routeTables", "rt")));

  clock_.advance(kLong);
  Pass second = r.remove(services, futures_, conditions_);
  EXPECT_TRUE(second.done);
  EXPECT_FALSE(exists(idOf("Microsoft.Network/routeTables", "rt")));
  EXPECT_TRUE(exists(idOf("Microsoft.Network/networkSecurityGroups", "nsg-a")))
      << "skipDelete: counted Done, never deleted";
  const auto* nsg = find(conditions_, capz::kSecurityGroupsReadyCondition);
  ASSERT_NE(nsg, nullptr);
  EXPECT_EQ(nsg->status, "True") << "a skipped service's condition is left as it was";
}

}  // namespace
}  // namespace nodewright::controllers::capz::testing
