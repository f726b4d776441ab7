#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "api/karpenter/decode.h"

// Invalid Karpenter v1 manifests: each is decoded, defaulted and validated like `nodewright
// validate` does, and must report exactly these errors, all at once.
namespace nodewright::api::karpenter {
namespace {

using testing::decodeOne;
using testing::errorStrings;

constexpr std::string_view kNodeClassRef =
    "nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}";

// A NodePool whose template spec holds nodeClassRef plus `templateSpec` (flow-style entries),
// followed by `spec`: extra block lines indented by two spaces under spec.
std::string pool(std::string_view templateSpec, std::string_view spec = "") {
  std::string out =
      "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec:\n"
      "  template:\n    spec: {";
  out += kNodeClassRef;
  if (!templateSpec.empty()) {
    out += ", ";
    out += templateSpec;
  }
  out += "}\n";
  out += spec;
  return out;
}

// A NodePool with one requirement given in flow style.
std::string requirement(std::string_view req) {
  return pool("requirements: [" + std::string(req) + "]");
}

// An EC2NodeClass with exactly the given spec lines (indented by two spaces).
std::string nodeClassSpec(std::string_view spec) {
  return "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: c}\nspec:\n" +
         std::string(spec);
}

// A valid EC2NodeClass plus `extra` spec lines.
std::string nodeClass(std::string_view extra) {
  return nodeClassSpec(
      "  role: KarpenterNodeRole\n"
      "  amiSelectorTerms: [{alias: al2023@latest}]\n"
      "  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]\n"
      "  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]\n" +
      std::string(extra));
}

// One network interface in flow style with its three required keys (Karpenter v1.14 has no
// defaults for them), plus `extra` fields.
std::string nic(int card, int device, const std::string& type = "interface",
                const std::string& extra = "") {
  return "{networkCardIndex: " + std::to_string(card) + ", deviceIndex: " + std::to_string(device) +
         ", interfaceType: " + type + (extra.empty() ? "" : ", " + extra) + "}";
}

std::string manyBudgets(int n) {
  std::string spec = "  disruption:\n    budgets:\n";
  for (int i = 0; i < n; ++i) {
    spec += "      - nodes: \"1\"\n";
  }
  return pool("", spec);
}

const std::string kFixedAddress =
    "Forbidden: fixed addresses cannot be shared by a fleet of nodes: every instance launched "
    "from this node class would claim the same address (seed 001); use ipv4PrefixCount or "
    "ipv6PrefixCount";
// The karpenter.sh/v1 CRD's patterns and CEL messages (kubernetes-sigs/karpenter v1.14
// pkg/apis/crds/karpenter.sh_nodepools.yaml); key syntax beyond the pattern is runtime-validated.
const std::string kKeyPattern =
    R"(^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*(\/))?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$)";
const std::string kValuePattern = R"(^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$)";
const std::string kReqs = "spec.template.spec.requirements";
const std::string kInNeedsValues =
    kReqs + R"(: Invalid value: "array": requirements with operator 'In' must have a value )"
            "defined";
const std::string kOneInteger =
    kReqs + R"(: Invalid value: "array": requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' )"
            "must have a single positive integer value";
const std::string kOperators =
    R"("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte")";
const std::string kReq = "spec.template.spec.requirements[0]";
const std::string kNi = "spec.networkInterfaces";
// The CRD's volumeSize pattern (aws/karpenter-provider-aws v1.14.1), as the message quotes it.
const std::string kVolumeSizePattern =
    "'^((?:[1-9][0-9]{0,3}|[1-4][0-9]{4}|[5][0-8][0-9]{3}|59000)Gi|(?:[1-9][0-9]{0,3}|"
    "[1-5][0-9]{4}|[6][0-3][0-9]{3}|64000)G|([1-9]||[1-5][0-7]|58)Ti|([1-9]||[1-5][0-9]|"
    "6[0-3]|64)T)$'";

struct InvalidCase {
  std::string name;
  std::string yaml;
  std::vector<std::string> errors;
};

// Failure messages name the case instead of dumping its bytes.
void PrintTo(const InvalidCase& c, std::ostream* os) {
  *os << c.name;
}

class KarpenterInvalidManifestTest : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(KarpenterInvalidManifestTest, ReportsEveryErrorWithItsFieldPath) {
  DecodedObject decoded = decodeOne(GetParam().yaml);
  EXPECT_EQ(errorStrings(decoded.errors), GetParam().errors);
}

const InvalidCase kCases[] = {
    // Requirements: operators with the wrong number of values. The rules sit on the list
    // (x-kubernetes-validations of requirements), so kube-apiserver names the list.
    {"RequirementInWithoutValues",
     requirement("{key: kubernetes.io/arch, operator: In}"),
     {kInNeedsValues}},
    // No CRD rule or runtime check limits Exists/DoesNotExist values (upstream admits them).
    {"RequirementExistsWithValues",
     requirement("{key: kubernetes.io/arch, operator: Exists, values: [amd64]}"),
     {}},
    {"RequirementDoesNotExistWithValues",
     requirement("{key: example.com/gpu, operator: DoesNotExist, values: [a, b]}"),
     {}},
    {"RequirementGtWithTwoValues",
     requirement("{key: karpenter.k8s.aws/instance-cpu, operator: Gt, values: ['1', '2']}"),
     {kOneInteger}},
    {"RequirementLtWithoutValues",
     requirement("{key: karpenter.k8s.aws/instance-cpu, operator: Lt}"),
     {kOneInteger}},
    {"RequirementGteWithNonInteger",
     requirement("{key: karpenter.k8s.aws/instance-memory, operator: Gte, values: [four]}"),
     {kOneInteger}},
    {"RequirementLteWithFraction",
     requirement("{key: karpenter.k8s.aws/instance-memory, operator: Lte, values: ['1.5']}"),
     {kOneInteger}},
    {"RequirementUnsupportedOperator",
     requirement("{key: kubernetes.io/arch, operator: Equals, values: [amd64]}"),
     {kReq + R"(.operator: Unsupported value: "Equals": supported values: )" + kOperators}},
    {"RequirementWithoutOperator",
     requirement("{key: kubernetes.io/arch, values: [amd64]}"),
     {kReq + ".operator: Required value"}},
    {"RequirementMinValuesAboveValueCount",
     requirement("{key: karpenter.k8s.aws/instance-family, operator: In, values: [m5, c5], "
                 "minValues: 3}"),
     {kReqs + R"(: Invalid value: "array": requirements with 'minValues' must have at least )"
              "that many values specified in the 'values' field"}},
    {"RequirementMinValuesOutOfRange",
     requirement("{key: karpenter.k8s.aws/instance-family, operator: Exists, minValues: 51}"),
     {kReq + ".minValues: Invalid value: 51: must be less than or equal to 50"}},
    // Upstream restricts minValues to no operator (issue 23: minValues on Gt is accepted).
    {"RequirementMinValuesWithNotIn",
     requirement("{key: karpenter.k8s.aws/instance-family, operator: NotIn, values: [t2], "
                 "minValues: 1}"),
     {}},
    {"RequirementOnHostname",
     requirement("{key: kubernetes.io/hostname, operator: In, values: [node-a]}"),
     {kReq + R"(.key: Invalid value: "string": label "kubernetes.io/hostname" is restricted)"}},
    {"RequirementOnNodePoolLabel",
     requirement("{key: karpenter.sh/nodepool, operator: In, values: [other]}"),
     {kReq + R"(.key: Invalid value: "string": label "karpenter.sh/nodepool" is restricted)"}},
    {"RequirementInKarpenterDomain",
     requirement("{key: karpenter.sh/custom, operator: Exists}"),
     {kReq + R"(.key: Invalid value: "string": label domain "karpenter.sh" is restricted)"}},
    {"RequirementWithInvalidKey",
     requirement("{key: 'bad key', operator: Exists}"),
     {kReq + R"(.key: Invalid value: "bad key": )" + kReq + ".key in body should match '" +
      kKeyPattern + "'"}},

    // Taints.
    {"TaintWithUnknownEffect",
     pool("taints: [{key: dedicated, effect: NoRun}]"),
     {R"(spec.template.spec.taints[0].effect: Unsupported value: "NoRun": supported values: )"
      R"("NoSchedule", "PreferNoSchedule", "NoExecute")"}},
    {"TaintWithoutKeyOrEffect",
     pool("taints: [{value: gpu}]"),
     {"spec.template.spec.taints[0].key: Required value",
      "spec.template.spec.taints[0].effect: Required value"}},
    // taints and startupTaints are atomic lists; upstream finds duplicates at runtime only
    // (nodeclaim_validation.go validateTaintsField).
    {"TaintRepeatedAsStartupTaint",
     pool("taints: [{key: dedicated, effect: NoSchedule}], "
          "startupTaints: [{key: dedicated, value: other, effect: NoSchedule}]"),
     {}},

    // Disruption budgets.
    {"BudgetScheduleWithoutDuration",
     pool("", "  disruption:\n    budgets: [{nodes: '0', schedule: '0 9 * * mon-fri'}]\n"),
     {R"(spec.disruption.budgets: Invalid value: "array": 'schedule' must be set with )"
      "'duration'"}},
    {"BudgetDurationWithoutSchedule",
     pool("", "  disruption:\n    budgets: [{nodes: '0', duration: 1h}]\n"),
     {R"(spec.disruption.budgets: Invalid value: "array": 'schedule' must be set with )"
      "'duration'"}},
    {"BudgetNodesAboveHundredPercent",
     pool("", "  disruption:\n    budgets: [{nodes: 101%}]\n"),
     {R"(spec.disruption.budgets[0].nodes: Invalid value: "101%": )"
      "spec.disruption.budgets[0].nodes in body should match '^((100|[0-9]{1,2})%|[0-9]+)$'"}},
    {"BudgetScheduleWithFourFields",
     pool("", "  disruption:\n    budgets: [{nodes: '1', schedule: '0 9 * *', duration: 1h}]\n"),
     {R"(spec.disruption.budgets[0].schedule: Invalid value: "0 9 * *": )"
      "spec.disruption.budgets[0].schedule in body should match "
      R"('^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\s(.+)\s(.+)\s(.+)\s(.+))$')"}},
    // The CRD checks the schedule's shape only; cron itself is parsed where the budget is used
    // (upstream Budget.GetAllowedDisruptions), so this is admitted.
    {"BudgetScheduleOutOfRange",
     pool("", "  disruption:\n    budgets: [{nodes: '1', schedule: '0 9 * * 8', duration: 1h}]\n"),
     {}},
    {"BudgetDurationInSeconds",
     pool("", "  disruption:\n    budgets: [{nodes: '1', schedule: '@daily', duration: 90s}]\n"),
     {R"(spec.disruption.budgets[0].duration: Invalid value: "1m30s": must be whole minutes or )"
      "hours; cron has no seconds"}},
    {"BudgetDurationNever",
     pool("", "  disruption:\n    budgets: [{nodes: '1', schedule: '@daily', duration: Never}]\n"),
     {R"(spec.disruption.budgets[0].duration: Invalid value: "Never": must be a duration, not )"
      "Never"}},
    {"BudgetWithUnknownReason",
     pool("", "  disruption:\n    budgets: [{nodes: '1', reasons: [Drifted, Expired]}]\n"),
     {R"(spec.disruption.budgets[0].reasons[1]: Unsupported value: "Expired": supported )"
      R"(values: "Underutilized", "Empty", "Drifted")"}},
    {"TooManyBudgets",
     manyBudgets(51),
     {"spec.disruption.budgets: Too many: 51: must have at most 50 items"}},

    // Durations and quantities.
    {"MalformedConsolidateAfter",
     pool("", "  disruption: {consolidateAfter: soon}\n"),
     {R"(spec.disruption.consolidateAfter: Invalid value: "soon": time: invalid duration "soon")"}},
    {"ConsolidationPolicyFromV1Beta1",
     pool("", "  disruption: {consolidationPolicy: WhenUnderutilized}\n"),
     {R"(spec.disruption.consolidationPolicy: Unsupported value: "WhenUnderutilized": )"
      R"(supported values: "WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced")"}},
    {"NegativeExpireAfter",
     pool("expireAfter: -1h"),
     {R"(spec.template.spec.expireAfter: Invalid value: "-1h0m0s": must not be negative)"}},
    {"TerminationGracePeriodNever",
     pool("terminationGracePeriod: Never"),
     {R"(spec.template.spec.terminationGracePeriod: Invalid value: "Never": must be a )"
      "duration, not Never"}},
    {"MalformedLimitQuantity",
     pool("", "  limits: {cpu: 1000x, memory: 1Ti}\n"),
     {R"(spec.limits[cpu]: Invalid value: "1000x": quantities must match the regular )"
      R"(expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$')"}},
    {"WeightOutOfRange",
     pool("", "  weight: 101\n"),
     {"spec.weight: Invalid value: 101: must be less than or equal to 100"}},
    {"WeightZero",
     pool("", "  weight: 0\n"),
     {"spec.weight: Invalid value: 0: must be greater than or equal to 1"}},

    // Template structure.
    {"UnknownTemplateField",
     pool("providerRef: {name: default}"),
     {"spec.template.spec.providerRef: field not declared in schema"}},
    {"MissingNodeClassRef",
     "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec:\n"
     "  template:\n    spec: {taints: [{key: a, effect: NoSchedule}]}\n",
     {"spec.template.spec.nodeClassRef: Required value"}},
    {"NodeClassRefWithVersionedGroup",
     "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec:\n"
     "  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws/v1, name: default}\n",
     {"spec.template.spec.nodeClassRef.kind: Required value",
      R"(spec.template.spec.nodeClassRef.group: Invalid value: "karpenter.k8s.aws/v1": )"
      "spec.template.spec.nodeClassRef.group in body should match '^[^/]*$'"}},
    {"RestrictedTemplateLabel",
     "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec:\n"
     "  template:\n    metadata:\n      labels: {kubernetes.io/hostname: a, team: 'a b'}\n"
     "    spec: {" +
         std::string(kNodeClassRef) + "}\n",
     {R"(spec.template.metadata.labels[team]: Invalid value: "a b": )"
      "spec.template.metadata.labels[team] in body should match '" +
          kValuePattern + "'",
      R"(spec.template.metadata.labels: Invalid value: "object": label "kubernetes.io/hostname" )"
      "is restricted"}},

    // Kubelet.
    {"KubeletImageGCThresholdsInverted",
     nodeClass("  kubelet: {imageGCHighThresholdPercent: 50, imageGCLowThresholdPercent: 60}\n"),
     {"spec.kubelet.imageGCHighThresholdPercent: Invalid value: 50: must be greater than "
      "imageGCLowThresholdPercent (60)"}},
    {"KubeletSoftEvictionWithoutGracePeriod",
     nodeClass("  kubelet:\n    evictionSoft: {memory.available: 500Mi}\n"
               "    evictionSoftGracePeriod: {nodefs.available: 1m}\n"),
     {"spec.kubelet.evictionSoft[nodefs.available]: Required value: "
      "evictionSoftGracePeriod[nodefs.available] needs a matching soft eviction threshold",
      "spec.kubelet.evictionSoftGracePeriod[memory.available]: Required value: "
      "evictionSoft[memory.available] needs a grace period"}},
    {"KubeletNegativeMaxPodsAndUnknownReservation",
     nodeClass("  kubelet: {maxPods: -1, systemReserved: {gpu: '1', memory: -1Gi}}\n"),
     {"spec.kubelet.maxPods: Invalid value: -1: must be greater than or equal to 0",
      R"(spec.kubelet.systemReserved[gpu]: Unsupported value: "gpu": supported values: "cpu", )"
      R"("memory", "ephemeral-storage", "pid")",
      R"(spec.kubelet.systemReserved[memory]: Invalid value: "-1Gi": must not be negative)"}},
    {"KubeletMalformedGracePeriod",
     nodeClass("  kubelet:\n    evictionSoft: {memory.available: 5%}\n"
               "    evictionSoftGracePeriod: {memory.available: 1 minute}\n"),
     {R"(spec.kubelet.evictionSoftGracePeriod[memory.available]: Invalid value: "1 minute": )"
      R"(time: unknown unit " minute" in duration "1 minute")"}},

    // Network interfaces (seed 001). Karpenter v1.14 states its rules on the list, so a missing
    // primary or a duplicate names spec.networkInterfaces, and a spec.associatePublicIPAddress
    // beside the list is accepted (aws/karpenter-provider-aws v1.14.1
    // pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml, networkInterfaces).
    {"DuplicateDeviceIndexOnOneCard",
     nodeClass("  networkInterfaces:\n    - " + nic(0, 0) + "\n    - " + nic(0, 1) + "\n    - " +
               nic(0, 1) + "\n"),
     {"spec.networkInterfaces[2]: Duplicate value: "
      R"({"networkCardIndex":0,"deviceIndex":1})",
      R"(spec.networkInterfaces: Invalid value: "array": networkInterfaces must )"
      "not have duplicate networkCardIndex and deviceIndex pairs, and can have "
      "at most one efa device per network card"}},
    // Upstream names the list, not the interface: its rule is on networkInterfaces.
    {"PrimaryInterfaceOffCardZero",
     nodeClass("  networkInterfaces: [" + nic(1, 0) + "]\n"),
     {R"(spec.networkInterfaces: Invalid value: "array": networkInterfaces must )"
      "include a primary interface with interfaceType='interface'"}},
    {"EfaOnlyPrimaryInterface",
     nodeClass("  networkInterfaces: [" + nic(0, 0, "efa-only") + "]\n"),
     {R"(spec.networkInterfaces: Invalid value: "array": networkInterfaces must )"
      "include a primary interface with interfaceType='interface'"}},
    {"NegativeInterfaceIndices",
     nodeClass("  networkInterfaces: [" + nic(0, 0) + ", " + nic(-2, -1) + "]\n"),
     {kNi + "[1].deviceIndex: Invalid value: -1: must be greater than or equal to 0",
      kNi + "[1].networkCardIndex: Invalid value: -2: must be greater than or equal to 0"}},
    {"NegativePrefixCounts",
     nodeClass("  networkInterfaces: [" +
               nic(0, 0, "interface", "ipv4PrefixCount: -1, ipv6PrefixCount: -3") + "]\n"),
     {kNi + "[0].ipv4PrefixCount: Invalid value: -1: must be greater than or equal to 0",
      kNi + "[0].ipv6PrefixCount: Invalid value: -3: must be greater than or equal to 0"}},
    {"SpecificIpAddresses",
     nodeClass("  networkInterfaces:\n    - {networkCardIndex: 0, deviceIndex: 0, "
               "interfaceType: interface, privateIpAddress: 10.0.0.5,\n"
               "       ipv6Addresses: [{ipv6Address: '2600::1'}]}\n"),
     {kNi + "[0].privateIpAddress: " + kFixedAddress, kNi + "[0].ipv6Addresses: " + kFixedAddress}},
    {"ExistingInterfaceAndSubnetId",
     nodeClass("  networkInterfaces: [" +
               nic(0, 0, "interface", "networkInterfaceId: eni-0123, subnetId: subnet-0123") +
               "]\n"),
     {kNi + "[0].networkInterfaceId: Forbidden: an existing network interface attaches to one "
            "instance only and cannot be shared by a fleet of nodes (seed 001)",
      kNi + "[0].subnetId: Forbidden: subnets are resolved per zone from subnetSelectorTerms, "
            "on the node class or on this interface"}},
    {"NoPrimaryInterface",
     nodeClass("  networkInterfaces: [" + nic(0, 1) + ", " + nic(0, 2) + "]\n"),
     {R"(spec.networkInterfaces: Invalid value: "array": networkInterfaces must )"
      "include a primary interface with interfaceType='interface'"}},
    {"PublicIpOnSecondaryInterface",
     nodeClass("  networkInterfaces: [" + nic(0, 0) + ", " +
               nic(0, 1, "interface", "associatePublicIPAddress: true") + "]\n"),
     {kNi + "[1].associatePublicIPAddress: Forbidden: only the primary interface (deviceIndex 0) "
            "can have a public IP address"}},
    {"PublicIpWithSeveralInterfaces",
     nodeClass("  networkInterfaces: [" + nic(0, 0, "interface", "associatePublicIPAddress: true") +
               ", " + nic(0, 1) + "]\n"),
     {kNi + "[0].associatePublicIPAddress: Forbidden: EC2 assigns a public IP address only when "
            "a single network interface is launched"}},
    {"PublicAndCarrierIpTogether",
     nodeClass(
         "  networkInterfaces: [" +
         nic(0, 0, "interface", "associatePublicIPAddress: true, associateCarrierIPAddress: true") +
         "]\n"),
     {kNi + "[0].associateCarrierIPAddress: Forbidden: cannot be combined with "
            "associatePublicIPAddress"}},
    {"UnknownInterfaceTypeAndLongDescription",
     nodeClass("  networkInterfaces: [" +
               nic(0, 0, "ena", "description: " + std::string(256, 'd')) + "]\n"),
     {kNi + R"([0].description: Invalid value: ")" + std::string(256, 'd') +
          R"(": must be no more than 255 characters)",
      kNi + R"([0].interfaceType: Unsupported value: "ena": supported values: "interface", )"
            R"("efa-only")",
      kNi + R"(: Invalid value: "array": networkInterfaces must include a primary interface )"
            "with interfaceType='interface'"}},
    {"EfaOnlyInterfaceWithPrefixes",
     nodeClass("  networkInterfaces: [" + nic(0, 0) + ", " +
               nic(1, 1, "efa-only", "ipv4PrefixCount: 1") + "]\n"),
     {kNi + "[1].ipv4PrefixCount: Forbidden: an efa-only interface has no IP addresses"}},
    {"InterfaceSelectorTermWithoutFields",
     nodeClass("  networkInterfaces: [" + nic(0, 0, "interface", "subnetSelectorTerms: [{}]") +
               "]\n"),
     {R"(spec.networkInterfaces[0].subnetSelectorTerms: Invalid value: "array": )"
      "expected at least one, got none, ['tags', 'id']"}},

    // Selector terms, AMIs and identity. The CRD's rules on term lists name the list, and its
    // "'id' is mutually exclusive" rules read !self.all(...): they fail only when every term
    // breaks them, so one id-with-tags term beside a plain one is accepted. amiFamily, role and
    // instanceProfile rules sit on the spec, restricted tags on the tags map (v1.14.1 CRD and
    // pkg/apis/v1/ec2nodeclass.go markers).
    {"MissingSelectorTerms",
     nodeClassSpec("  role: KarpenterNodeRole\n  amiSelectorTerms: [{alias: al2023@latest}]\n"),
     {"spec.subnetSelectorTerms: Required value",
      "spec.securityGroupSelectorTerms: Required value"}},
    {"SubnetIdWithTagsAndBadId",
     nodeClassSpec("  role: KarpenterNodeRole\n  amiSelectorTerms: [{alias: al2023@latest}]\n"
                   "  subnetSelectorTerms: [{id: subnet-0123, tags: {a: b}}, {id: vpc-0123}]\n"
                   "  securityGroupSelectorTerms: [{id: sg-0123, name: default}]\n"),
     {R"(spec.subnetSelectorTerms[1].id: Invalid value: "vpc-0123": should match )"
      "'subnet-[0-9a-z]+'",
      R"(spec.securityGroupSelectorTerms: Invalid value: "array": 'id' is mutually )"
      "exclusive, cannot be set with a combination of other fields in a security "
      "group selector term",
      R"(spec.securityGroupSelectorTerms: Invalid value: "array": 'name' is )"
      "mutually exclusive, cannot be set with a combination of other fields in a "
      "security group selector term"}},
    {"EmptySelectorTagValue",
     nodeClass("  capacityReservationSelectorTerms: [{tags: {team: ''}}]\n"),
     {R"(spec.capacityReservationSelectorTerms[0].tags[team]: Invalid value: "": empty tag keys )"
      "or values aren't supported"}},
    {"AliasWithOtherFieldsAndTerms",
     nodeClassSpec("  role: KarpenterNodeRole\n"
                   "  amiSelectorTerms: [{alias: al2023@latest, owner: self}, {id: ami-0123}]\n"
                   "  subnetSelectorTerms: [{id: subnet-0123}]\n"
                   "  securityGroupSelectorTerms: [{id: sg-0123}]\n"),
     {R"(spec.amiSelectorTerms: Invalid value: "array": 'alias' is mutually )"
      "exclusive, cannot be set with a combination of other fields in "
      "amiSelectorTerms",
      R"(spec.amiSelectorTerms: Invalid value: "array": 'alias' is mutually )"
      "exclusive, cannot be set with a combination of other amiSelectorTerms"}},
    {"AliasWithUnknownFamily",
     nodeClassSpec("  role: KarpenterNodeRole\n  amiSelectorTerms: [{alias: ubuntu@latest}]\n"
                   "  subnetSelectorTerms: [{id: subnet-0123}]\n"
                   "  securityGroupSelectorTerms: [{id: sg-0123}]\n"),
     {R"(spec.amiSelectorTerms[0].alias: Invalid value: "string": family is not )"
      "supported, must be one of the following: 'al2', 'al2023', 'bottlerocket', "
      "'windows2019', 'windows2022', 'windows2025'"}},
    {"AliasWithoutVersion",
     nodeClassSpec("  role: KarpenterNodeRole\n  amiSelectorTerms: [{alias: al2023}]\n"
                   "  subnetSelectorTerms: [{id: subnet-0123}]\n"
                   "  securityGroupSelectorTerms: [{id: sg-0123}]\n"),
     {R"(spec.amiSelectorTerms[0].alias: Invalid value: "string": 'alias' is )"
      "improperly formatted, must match the format 'family@version'"}},
    {"PinnedWindowsAlias",
     nodeClassSpec("  role: KarpenterNodeRole\n  amiSelectorTerms: [{alias: windows2022@v1}]\n"
                   "  subnetSelectorTerms: [{id: subnet-0123}]\n"
                   "  securityGroupSelectorTerms: [{id: sg-0123}]\n"),
     {R"(spec.amiSelectorTerms[0].alias: Invalid value: "string": windows families )"
      "may only specify version 'latest'"}},
    {"AmiFamilyMissingWithoutAlias",
     nodeClassSpec("  role: KarpenterNodeRole\n  amiSelectorTerms: [{tags: {team: a}}]\n"
                   "  subnetSelectorTerms: [{id: subnet-0123}]\n"
                   "  securityGroupSelectorTerms: [{id: sg-0123}]\n"),
     {R"(spec: Invalid value: "object": must specify amiFamily if amiSelectorTerms )"
      "does not contain an alias"}},
    {"AmiFamilyContradictsAlias",
     nodeClass("  amiFamily: AL2\n"),
     {R"(spec: Invalid value: "object": if set, amiFamily must be 'AL2023' or )"
      "'Custom' when using an AL2023 alias"}},
    {"AmiFamilyUbuntuDroppedInV1",
     nodeClass("  amiFamily: Ubuntu\n"),
     {R"(spec.amiFamily: Unsupported value: "Ubuntu": supported values: "AL2", )"
      R"("AL2023", "Bottlerocket", "Custom", "Windows2019", "Windows2022", )"
      R"("Windows2025")",
      R"(spec: Invalid value: "object": if set, amiFamily must be 'AL2023' or )"
      "'Custom' when using an AL2023 alias"}},
    {"RoleAndInstanceProfile",
     nodeClass("  instanceProfile: KarpenterNodeInstanceProfile\n"),
     {R"(spec: Invalid value: "object": must specify exactly one of ['role', )"
      "'instanceProfile']"}},
    {"NeitherRoleNorInstanceProfile",
     nodeClassSpec("  amiSelectorTerms: [{alias: bottlerocket@latest}]\n"
                   "  subnetSelectorTerms: [{id: subnet-0123}]\n"
                   "  securityGroupSelectorTerms: [{id: sg-0123}]\n"),
     {R"(spec: Invalid value: "object": must specify exactly one of ['role', )"
      "'instanceProfile']"}},
    {"RestrictedTags",
     nodeClass("  tags: {kubernetes.io/cluster/demo: owned, karpenter.sh/nodepool: x, "
               "eks:eks-cluster-name: demo, team: a}\n"),
     {R"(spec.tags: Invalid value: "object": tag contains a restricted tag )"
      "matching eks:eks-cluster-name",
      R"(spec.tags: Invalid value: "object": tag contains a restricted tag )"
      "matching karpenter.sh/nodepool",
      R"(spec.tags: Invalid value: "object": tag contains a restricted tag )"
      "matching kubernetes.io/cluster/"}},
    {"MetadataOptionsOutOfRange",
     nodeClass("  metadataOptions: {httpTokens: maybe, httpPutResponseHopLimit: 65}\n"),
     {"spec.metadataOptions.httpPutResponseHopLimit: Invalid value: 65: must be less than or "
      "equal to 64",
      R"(spec.metadataOptions.httpTokens: Unsupported value: "maybe": supported values: )"
      R"("required", "optional")"}},
    {"BlockDeviceMappingsInvalid",
     nodeClass("  blockDeviceMappings:\n"
               "    - {deviceName: /dev/xvda, rootVolume: true, ebs: {volumeSize: 20Gi}}\n"
               "    - {deviceName: /dev/xvdb, rootVolume: true, ebs: {volumeType: gp4}}\n"
               "    - {deviceName: /dev/xvdc, ebs: {volumeSize: 100GB}}\n"),
     {R"(spec.blockDeviceMappings[2].ebs.volumeSize: Invalid value: "100GB": )"
      "quantities must match the regular expression "
      "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
      R"(spec.blockDeviceMappings[1].ebs.volumeType: Unsupported value: "gp4": )"
      R"(supported values: "standard", "io1", "io2", "gp2", "sc1", "st1", "gp3")",
      R"(spec.blockDeviceMappings[1].ebs: Invalid value: "object": snapshotID or )"
      "volumeSize must be defined",
      R"(spec.blockDeviceMappings: Invalid value: "array": must have only one )"
      "blockDeviceMappings with rootVolume"}},
    // aws/karpenter-provider-aws v1.14.1 ec2nodeclass_validation_cel_test.go:1128 and :1149: the
    // CRD's volumeSize pattern takes 1-59000Gi, 1-64000G, 1-58Ti or 1-64T only.
    {"VolumeSizeOutsideThePattern",
     nodeClass("  blockDeviceMappings:\n"
               "    - {deviceName: /dev/xvda, ebs: {volumeSize: 1m}}\n"
               "    - {deviceName: /dev/xvdb, ebs: {volumeSize: 100T}}\n"),
     {R"(spec.blockDeviceMappings[0].ebs.volumeSize: Invalid value: "1m": should )"
      "match " +
          kVolumeSizePattern,
      R"(spec.blockDeviceMappings[1].ebs.volumeSize: Invalid value: "100T": should )"
      "match " +
          kVolumeSizePattern}},
    // ec2nodeclass_validation_cel_test.go:1397: an empty connectionTracking sets nothing.
    {"ConnectionTrackingEmpty",
     nodeClass("  connectionTracking: {}\n  cpuOptions: {nestedVirtualization: sometimes}\n"),
     {R"(spec.connectionTracking: Invalid value: "object": at least one of )"
      "tcpEstablishedTimeout, udpStreamTimeout, or udpTimeout must be set",
      R"(spec.cpuOptions.nestedVirtualization: Unsupported value: "sometimes": )"
      R"(supported values: "enabled", "disabled")"}},
    {"SeedEraFieldsInV1",
     nodeClass("  subnetSelector: {karpenter.sh/discovery: demo}\n"),
     {"spec.subnetSelector: field not declared in schema"}},
    {"RepeatedConditionTypes",
     nodeClass("status:\n  conditions:\n"
               "    - {type: Ready, status: 'True', reason: Ready, "
               "lastTransitionTime: '2024-08-01T10:00:00Z'}\n"
               "    - {type: Ready, status: Maybe, reason: Ready, "
               "lastTransitionTime: '2024-08-01T10:00:00Z'}\n"),
     {R"(status.conditions[1].status: Unsupported value: "Maybe": supported values: "True", )"
      R"("False", "Unknown")",
      R"(status.conditions[1].type: Duplicate value: "Ready")"}},

    // Several independent mistakes are all reported together.
    {"SeveralErrorsAtOnce",
     nodeClassSpec("  role: KarpenterNodeRole\n  amiFamily: AL2023\n"
                   "  amiSelectorTerms: [{tags: {team: a}}]\n"
                   "  subnetSelectorTerms: [{}]\n"
                   "  securityGroupSelectorTerms: [{tags: {team: a}}]\n"
                   "  userdata: typo\n"
                   "  networkInterfaces:\n"
                   "    - " +
                   nic(1, 0, "efa-only") +
                   "\n"
                   "    - " +
                   nic(0, 1, "interface", "privateIpAddresses: [10.0.0.9]") +
                   "\n"
                   "    - " +
                   nic(0, 1, "interface", "ipv4PrefixCount: -1") + "\n"),
     {"spec.userdata: field not declared in schema",
      "spec.networkInterfaces[1].privateIpAddresses: Forbidden: fixed addresses "
      "cannot be shared by a fleet of nodes: every instance launched from this "
      "node class would claim the same address (seed 001); use ipv4PrefixCount "
      "or ipv6PrefixCount",
      "spec.networkInterfaces[2]: Duplicate value: "
      R"({"networkCardIndex":0,"deviceIndex":1})",
      "spec.networkInterfaces[2].ipv4PrefixCount: Invalid value: -1: must be "
      "greater than or equal to 0",
      R"(spec.subnetSelectorTerms: Invalid value: "array": expected at least one, )"
      "got none, ['tags', 'id']",
      R"(spec.networkInterfaces: Invalid value: "array": networkInterfaces must )"
      "include a primary interface with interfaceType='interface'",
      R"(spec.networkInterfaces: Invalid value: "array": networkInterfaces must )"
      "not have duplicate networkCardIndex and deviceIndex pairs, and can have "
      "at most one efa device per network card"}},
};

INSTANTIATE_TEST_SUITE_P(Manifests, KarpenterInvalidManifestTest, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return info.param.name; });

TEST(KarpenterInvalidManifestTableTest, CoversAtLeastFortyFiveManifests) {
  EXPECT_GE(std::size(kCases), 45u);
}

}  // namespace
}  // namespace nodewright::api::karpenter
