// Invalid CAPZ manifests: each breaks one rule of the CAPZ CRDs or webhooks, or of seed 004's
// Futures and conditions, and must be reported with the exact field path and message.
#include <gtest/gtest.h>

#include "api/capi/manifest_helpers.h"
#include "api/capz/manifests.h"

namespace nodewright::api::capz {
namespace {

using capi::testing::InvalidCase;

constexpr const char* kCluster = testing::kPublicCluster;
constexpr const char* kPrivate = testing::kPrivateCluster;
constexpr const char* kMachine = testing::kCreatingMachine;
constexpr const char* kMachineTemplate = R"(
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureMachineTemplate
metadata:
  name: capz-demo-md-0
spec:
  template:
    spec:
      vmSize: Standard_D4s_v3
      osDisk:
        osType: Linux
)";
constexpr const char* kPool = R"(
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureMachinePool
metadata:
  name: capz-demo-mp-0
spec:
  location: westeurope
  template:
    vmSize: Standard_D2s_v3
    osDisk:
      osType: Linux
status:
  longRunningOperationStates:
  - type: PUT
    serviceName: scalesets
    name: capz-demo-mp-0
    data: eyJ0eXBlIjoiUFVUIn0
)";
constexpr const char* kPoolMachine = R"(
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureMachinePoolMachine
metadata:
  name: capz-demo-mp-0-0
spec:
  providerID: azure:///subscriptions/0/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm_0
  instanceID: "0"
)";

Json& subnet(Json& cluster, size_t i) {
  return cluster["spec"]["networkSpec"]["subnets"][i];
}

Json& rules(Json& cluster) {
  return subnet(cluster, 0)["securityGroup"]["securityRules"];
}

Json& futures(Json& object) {
  return object["status"]["longRunningOperationStates"];
}

Json condition(const char* type) {
  return Json{{"type", type}, {"status", "True"}, {"lastTransitionTime", "2024-05-14T09:20:00Z"}};
}

class AzureValidationTest : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(AzureValidationTest, ReportsEveryErrorWithItsPath) {
  Json doc = capi::testing::document(GetParam().base);
  GetParam().edit(doc);
  DecodedObject decoded = capi::testing::decode(doc);
  EXPECT_EQ(capi::testing::errorStrings(decoded.errors), GetParam().errors);
}

TEST(AzureValidationBaseTest, BaseManifestsAreValid) {
  for (const char* base : {kCluster, kPrivate, kMachine, kMachineTemplate, kPool, kPoolMachine}) {
    EXPECT_EQ(
        capi::testing::errorStrings(capi::testing::decode(capi::testing::document(base)).errors),
        std::vector<std::string>{})
        << base;
  }
}

// The same operation on a same-named resource in another resource group is another future.
TEST(AzureValidationBaseTest, SameFutureInAnotherResourceGroupIsValid) {
  Json doc = capi::testing::document(kMachine);
  Json other = futures(doc)[0];
  other["resourceGroup"] = "other-rg";
  futures(doc).push_back(other);
  EXPECT_EQ(capi::testing::errorStrings(capi::testing::decode(doc).errors),
            std::vector<std::string>{});
}

INSTANTIATE_TEST_SUITE_P(
    Manifests, AzureValidationTest,
    ::testing::Values(
        // Seed 004: a Future is identified by its name (with its service); both are required.
        InvalidCase{"FutureWithoutNameOrServiceName",
                    kMachine,
                    [](Json& j) {
                      futures(j)[1].erase("name");
                      futures(j)[1].erase("serviceName");
                    },
                    {"status.longRunningOperationStates[1].serviceName: Required value",
                     "status.longRunningOperationStates[1].name: Required value"}},
        InvalidCase{"FutureWithoutType",
                    kPool,
                    [](Json& j) { futures(j)[0].erase("type"); },
                    {"status.longRunningOperationStates[0].type: Required value"}},
        InvalidCase{"SameFutureRecordedTwice",
                    kMachine,
                    [](Json& j) { futures(j).push_back(futures(j)[0]); },
                    {"status.longRunningOperationStates[2]: Duplicate value: "
                     "{\"serviceName\":\"virtualmachine\",\"resourceGroup\":\"capz-demo-rg\","
                     "\"name\":\"capz-demo-md-0-x2kqp\",\"type\":\"PUT\"}"}},
        InvalidCase{"PoolMachineFutureWithoutNameAndNoProviderID",
                    kPoolMachine,
                    [](Json& j) {
                      j["spec"].erase("providerID");
                      futures(j) = Json::array({Json{{"type", "DELETE"},
                                                     {"serviceName", "scalesetvm"},
                                                     {"resourceGroup", "capz-demo-rg"}}});
                    },
                    {"spec.providerID: Required value",
                     "status.longRunningOperationStates[0].name: Required value"}},
        InvalidCase{"ClusterConditionTypeRepeated",
                    kCluster,
                    [](Json& j) {
                      j["status"]["conditions"] =
                          Json::array({condition("VNetReady"), condition("SubnetsReady"),
                                       condition("VNetReady")});
                    },
                    {"status.conditions[2].type: Duplicate value: \"VNetReady\""}},
        InvalidCase{"MachineConditionTypeRepeated",
                    kMachine,
                    [](Json& j) { j["status"]["conditions"].push_back(condition("VMRunning")); },
                    {"status.conditions[3].type: Duplicate value: \"VMRunning\""}},
        InvalidCase{"MachineWithoutVmSizeOrOsType",
                    kMachine,
                    [](Json& j) {
                      j["spec"].erase("vmSize");
                      j["spec"]["osDisk"].erase("osType");
                    },
                    {"spec.vmSize: Required value", "spec.osDisk.osType: Required value"}},
        InvalidCase{"MachineImageWithTwoSources",
                    kMachine,
                    [](Json& j) {
                      j["spec"]["image"]["computeGallery"] = Json{{"gallery", "ClusterAPI"},
                                                                  {"name", "capi-ubun2-2204"},
                                                                  {"version", "1.30.2"}};
                    },
                    {"spec.image.computeGallery: Forbidden: ComputeGallery cannot be used as an "
                     "image ID, Marketplace or SharedGallery images has been specified"}},
        InvalidCase{"MachineImageWithoutSource",
                    kMachine,
                    [](Json& j) { j["spec"]["image"] = Json::object(); },
                    {"spec.image: Required value: You must supply an ID, Marketplace, "
                     "SharedGallery or ComputeGallery image details"}},
        InvalidCase{"MachineIncompleteMarketplaceImage",
                    kMachine,
                    [](Json& j) {
                      j["spec"]["image"] = Json{
                          {"marketplace", {{"publisher", "cncf-upstream"}, {"offer", "capi"}}}};
                    },
                    {"spec.image.marketplace.sku: Required value",
                     "spec.image.marketplace.version: Required value"}},
        InvalidCase{"MachineSpotEvictionPolicyUnknown",
                    kMachine,
                    [](Json& j) {
                      j["spec"]["spotVMOptions"] = Json{{"evictionPolicy", "Hibernate"}};
                    },
                    {"spec.spotVMOptions.evictionPolicy: Unsupported value: \"Hibernate\": "
                     "supported values: \"Deallocate\", \"Delete\""}},
        InvalidCase{"MachineDataDisksShareLunAndName",
                    kMachine,
                    [](Json& j) {
                      j["spec"]["dataDisks"][1]["nameSuffix"] = "etcddisk";
                      j["spec"]["dataDisks"][1]["lun"] = 1;
                    },
                    {"spec.dataDisks[1].nameSuffix: Duplicate value: \"etcddisk\"",
                     "spec.dataDisks[1].lun: Duplicate value: 1"}},
        InvalidCase{"MachineDataDiskOutOfRange",
                    kMachine,
                    [](Json& j) {
                      j["spec"]["dataDisks"][0]["diskSizeGB"] = 2;
                      j["spec"]["dataDisks"][0]["lun"] = 64;
                      j["spec"]["dataDisks"][0]["cachingType"] = "WriteBack";
                    },
                    {"spec.dataDisks[0].diskSizeGB: Invalid value: 2: must be greater than or "
                     "equal to 4",
                     "spec.dataDisks[0].lun: Invalid value: 64: must be less than or equal to 63",
                     "spec.dataDisks[0].cachingType: Unsupported value: \"WriteBack\": supported "
                     "values: \"None\", \"ReadOnly\", \"ReadWrite\""}},
        InvalidCase{"MachineUltraSsdOsDisk",
                    kMachine,
                    [](Json& j) {
                      j["spec"]["osDisk"]["managedDisk"]["storageAccountType"] = "UltraSSD_LRS";
                    },
                    {"spec.osDisk.managedDisk.storageAccountType: Invalid value: \"UltraSSD_LRS\": "
                     "UltraSSD_LRS can only be used with data disks, it cannot be used with OS "
                     "Disks"}},
        InvalidCase{"MachineUserAssignedWithoutIdentities",
                    kMachine,
                    [](Json& j) { j["spec"].erase("userAssignedIdentities"); },
                    {"spec.userAssignedIdentities: Required value: must be specified for the "
                     "'UserAssigned' identity type"}},
        InvalidCase{"MachineRoleAssignmentWithoutSystemIdentity",
                    kMachine,
                    [](Json& j) {
                      j["spec"]["roleAssignmentName"] = "c6e3b7f4-9f5e-4bde-8a1f-0e4b7a3d2c11";
                    },
                    {"spec.roleAssignmentName: Forbidden: Role assignment name should only be "
                     "set when using system assigned identity."}},
        InvalidCase{"MachineSshKeyNotBase64",
                    kMachine,
                    [](Json& j) { j["spec"]["sshPublicKey"] = "ssh-rsa AAAA"; },
                    {"spec.sshPublicKey: Invalid value: \"ssh-rsa AAAA\": the SSH public key is "
                     "not properly base64 encoded"}},
        InvalidCase{"MachineSecondNicWithoutSubnet",
                    kMachine,
                    [](Json& j) {
                      j["spec"]["networkInterfaces"][1].erase("subnetName");
                      j["spec"]["subnetName"] = "node-subnet";
                    },
                    {"spec.networkInterfaces: Forbidden: cannot be set together with the "
                     "deprecated subnetName or acceleratedNetworking",
                     "spec.networkInterfaces[1].subnetName: Required value: subnetName must be "
                     "set when using multiple network interfaces"}},
        InvalidCase{
            "MachineUserManagedDiagnosticsWithoutAccount",
            kMachine,
            [](Json& j) {
              j["spec"]["diagnostics"] = Json{{"boot", {{"storageAccountType", "UserManaged"}}}};
            },
            {"spec.diagnostics.boot.userManaged: Required value: userManaged must be "
             "specified when storageAccountType is 'UserManaged'"}},
        InvalidCase{"TemplateSharesOneRoleAssignment",
                    kMachineTemplate,
                    [](Json& j) {
                      Json& spec = j["spec"]["template"]["spec"];
                      spec["identity"] = "SystemAssigned";
                      spec["roleAssignmentName"] = "c6e3b7f4-9f5e-4bde-8a1f-0e4b7a3d2c11";
                    },
                    {"spec.template.spec.roleAssignmentName: Forbidden: cannot be set in a "
                     "template: every machine needs its own role assignment"}},
        InvalidCase{"ClusterWithoutLocationOrIdentity",
                    kCluster,
                    [](Json& j) {
                      j["spec"].erase("location");
                      j["spec"].erase("identityRef");
                    },
                    {"spec.location: Required value",
                     "spec.identityRef: Required value: identityRef is required"}},
        InvalidCase{"ClusterNameNotUsableForAzureResources",
                    kCluster,
                    [](Json& j) { j["metadata"]["name"] = "Capz_Demo"; },
                    {"metadata.name: Invalid value: \"Capz_Demo\": Cluster Name can contain only "
                     "lowercase alphanumeric characters and '-', must start/end with an "
                     "alphanumeric character"}},
        InvalidCase{"ClusterSubnetRoleUnknown",
                    kCluster,
                    [](Json& j) { subnet(j, 1)["role"] = "worker"; },
                    {"spec.networkSpec.subnets[1].role: Unsupported value: \"worker\": supported "
                     "values: \"node\", \"control-plane\", \"bastion\", \"cluster\", \"all\""}},
        InvalidCase{
            "ClusterVnetCidrInvalid",
            kCluster,
            [](Json& j) { j["spec"]["networkSpec"]["vnet"]["cidrBlocks"][0] = "10.0.0.0/40"; },
            {"spec.networkSpec.vnet.cidrBlocks[0]: Invalid value: \"10.0.0.0/40\": "
             "invalid CIDR format"}},
        InvalidCase{"ClusterSubnetOutsideVnet",
                    kCluster,
                    [](Json& j) {
                      subnet(j, 1)["cidrBlocks"] = Json::array({"172.16.0.0/16", "10.2.0.0.0/16"});
                    },
                    {"spec.networkSpec.subnets[1].cidrBlocks[1]: Invalid value: \"10.2.0.0.0/16\": "
                     "invalid CIDR format",
                     "spec.networkSpec.subnets[1].cidrBlocks[0]: Invalid value: \"172.16.0.0/16\": "
                     "subnet CIDR not in vnet address space: [10.0.0.0/8]"}},
        InvalidCase{"ClusterSecurityRuleEnumsAndPriority",
                    kCluster,
                    [](Json& j) {
                      rules(j)[0]["protocol"] = "Gre";
                      rules(j)[0]["direction"] = "Sideways";
                      rules(j)[0]["priority"] = 50;
                    },
                    {"spec.networkSpec.subnets[0].securityGroup.securityRules[0].protocol: "
                     "Unsupported value: \"Gre\": supported values: \"Tcp\", \"Udp\", \"Icmp\", "
                     "\"*\"",
                     "spec.networkSpec.subnets[0].securityGroup.securityRules[0].direction: "
                     "Unsupported value: \"Sideways\": supported values: \"Inbound\", \"Outbound\"",
                     "spec.networkSpec.subnets[0].securityGroup.securityRules[0].priority: "
                     "Invalid value: 50: must be greater than or equal to 100"}},
        InvalidCase{"ClusterSecurityRulePriorityRepeatedInOneDirection",
                    kCluster,
                    [](Json& j) { rules(j)[1]["priority"] = 2200; },
                    {"spec.networkSpec.subnets[0].securityGroup.securityRules[1].priority: "
                     "Duplicate value: 2200"}},
        InvalidCase{"ClusterSecurityRuleNameRepeated",
                    kCluster,
                    [](Json& j) { rules(j)[1]["name"] = "allow_ssh"; },
                    {"spec.networkSpec.subnets[0].securityGroup.securityRules[1]: Duplicate "
                     "value: {\"name\":\"allow_ssh\"}"}},
        InvalidCase{"ClusterSubnetNameRepeatedAndMalformed",
                    kCluster,
                    [](Json& j) {
                      subnet(j, 0)["name"] = "node subnet";
                      subnet(j, 1)["name"] = "node subnet";
                    },
                    {"spec.networkSpec.subnets[1]: Duplicate value: {\"name\":\"node subnet\"}",
                     "spec.networkSpec.subnets[0].name: Invalid value: \"node subnet\": name of "
                     "subnet doesn't match regex ^[-\\w\\._]+$",
                     "spec.networkSpec.subnets[1].name: Invalid value: \"node subnet\": name of "
                     "subnet doesn't match regex ^[-\\w\\._]+$"}},
        InvalidCase{"ClusterServiceEndpointMalformed",
                    kCluster,
                    [](Json& j) {
                      subnet(j, 1)["serviceEndpoints"][0]["service"] = "Storage";
                      subnet(j, 1)["serviceEndpoints"][0]["locations"][1] = "North Europe";
                    },
                    {"spec.networkSpec.subnets[1].serviceEndpoints[0].service: Invalid value: "
                     "\"Storage\": service name of endpoint service doesn't match regex "
                     "^Microsoft\\.[a-zA-Z]{1,42}[a-zA-Z0-9]{0,42}$",
                     "spec.networkSpec.subnets[1].serviceEndpoints[0].locations[1]: Invalid "
                     "value: \"North Europe\": location doesn't match regex "
                     "^([a-z]{1,42}\\d{0,5}|[*])$"}},
        InvalidCase{"ClusterLoadBalancerEnumsAndTimeout",
                    kCluster,
                    [](Json& j) {
                      Json& lb = j["spec"]["networkSpec"]["apiServerLB"];
                      lb["sku"] = "Basic";
                      lb["idleTimeoutInMinutes"] = 60;
                    },
                    {"spec.networkSpec.apiServerLB.sku: Unsupported value: \"Basic\": supported "
                     "values: \"Standard\"",
                     "spec.networkSpec.apiServerLB.idleTimeoutInMinutes: Invalid value: 60: must "
                     "be less than or equal to 30"}},
        InvalidCase{"ClusterApiServerLoadBalancerWithTwoFrontends",
                    kCluster,
                    [](Json& j) {
                      Json& frontends = j["spec"]["networkSpec"]["apiServerLB"]["frontendIPs"];
                      frontends.push_back(
                          Json{{"name", "second"}, {"publicIP", {{"name", "pip-second"}}}});
                    },
                    {"spec.networkSpec.apiServerLB.frontendIPConfigs: Invalid value: 2: API "
                     "Server Load balancer should have 1 Frontend IP"}},
        InvalidCase{"ClusterApiServerPrivateFrontendOutsideControlPlaneSubnet",
                    kCluster,
                    [](Json& j) {
                      Json& frontends = j["spec"]["networkSpec"]["apiServerLB"]["frontendIPs"];
                      frontends.push_back(Json{{"name", "ilb"}, {"privateIP", "192.168.9.9"}});
                    },
                    {"spec.networkSpec.apiServerLB.frontendIPConfigs[0].privateIP: Invalid "
                     "value: \"192.168.9.9\": Internal LB IP address needs to be in control "
                     "plane subnet range ([10.0.0.0/16])"}},
        InvalidCase{"ClusterApiServerZoneOutOfRange",
                    kPrivate,
                    [](Json& j) {
                      j["spec"]["networkSpec"]["apiServerLB"]["availabilityZones"] =
                          Json::array({"1", "4"});
                    },
                    {"spec.networkSpec.apiServerLB.availabilityZones[1]: Invalid value: \"4\": "
                     "spec.networkSpec.apiServerLB.availabilityZones[1] in body should match "
                     "'^[1-3]$'"}},
        InvalidCase{"ClusterControlPlaneOutboundOnPublicCluster",
                    kCluster,
                    [](Json& j) {
                      j["spec"]["networkSpec"]["controlPlaneOutboundLB"] = Json::object();
                      j["spec"]["networkSpec"]["privateDNSZoneName"] = "capz.internal";
                    },
                    {"spec.networkSpec.controlPlaneOutboundLB: Forbidden: Control plane outbound "
                     "load balancer cannot be set for public clusters.",
                     "spec.networkSpec.privateDNSZoneName: Invalid value: \"Public\": "
                     "PrivateDNSZoneName is available only if APIServerLB.Type is Internal"}},
        InvalidCase{"PrivateClusterFrontendWithPublicIpOutsideSubnet",
                    kPrivate,
                    [](Json& j) {
                      Json& frontend = j["spec"]["networkSpec"]["apiServerLB"]["frontendIPs"][0];
                      frontend["publicIP"] = Json{{"name", "pip-private"}};
                      frontend["privateIP"] = "10.0.2.100";
                    },
                    {"spec.networkSpec.apiServerLB.frontendIPConfigs[0].publicIP: Forbidden: "
                     "Internal Load Balancers cannot have a Public IP",
                     "spec.networkSpec.apiServerLB.frontendIPConfigs[0].privateIP: Invalid value: "
                     "\"10.0.2.100\": Internal LB IP address needs to be in control plane subnet "
                     "range ([10.0.0.0/24])"}},
        InvalidCase{"ClusterBastionTunnelingOnBasicSku",
                    kCluster,
                    [](Json& j) { j["spec"]["bastionSpec"]["azureBastion"]["sku"] = "Basic"; },
                    {"spec.bastionSpec.azureBastion.sku: Invalid value: \"Basic\": sku must be "
                     "Standard if tunneling is enabled"}},
        InvalidCase{"ClusterMisspelledNetworkField",
                    kCluster,
                    [](Json& j) { j["spec"]["networkSpec"]["subnet"] = Json::array(); },
                    {"spec.networkSpec.subnet: field not declared in schema"}},
        InvalidCase{"PoolStrategyAndTimeouts",
                    kPool,
                    [](Json& j) {
                      j["spec"]["strategy"] =
                          Json{{"rollingUpdate", {{"maxSurge", 0}, {"maxUnavailable", "0%"}}}};
                      j["spec"]["template"]["terminateNotificationTimeout"] = 30;
                      j["spec"]["orchestrationMode"] = "Mixed";
                    },
                    {"spec.template.terminateNotificationTimeout: Invalid value: 30: must be less "
                     "than or equal to 15",
                     "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: \"0%\": may not "
                     "be 0 when `maxSurge` is 0",
                     "spec.orchestrationMode: Unsupported value: \"Mixed\": supported values: "
                     "\"Flexible\", \"Uniform\""}}),
    capi::testing::caseName);

}  // namespace
}  // namespace nodewright::api::capz
