// Namespace, Event, Secret, ConfigMap and Lease.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "api/core/core_test_util.h"
#include "api/core/event.h"
#include "api/core/lease.h"
#include "api/core/namespace.h"
#include "api/core/secret.h"

namespace nodewright::api::corev1 {
namespace {

using testing::at;
using testing::comparable;
using testing::decode;
using testing::parseYaml;
using testing::roundTrip;
using testing::validationErrors;
using Strings = std::vector<std::string>;

constexpr std::string_view kNamespace = R"(
apiVersion: v1
kind: Namespace
metadata:
  name: shop
  labels: {kubernetes.io/metadata.name: shop}
spec:
  finalizers: [kubernetes]
status:
  phase: Terminating
  conditions:
  - type: NamespaceDeletionContentFailure
    status: "False"
    lastTransitionTime: "2024-05-01T10:00:00Z"
    reason: ContentDeleted
    message: All content successfully deleted
)";

constexpr std::string_view kEvent = R"(
apiVersion: v1
kind: Event
metadata:
  name: ip-10-0-1-23.ec2.internal.17c9a3b5d2e4f601
  namespace: default
involvedObject:
  apiVersion: v1
  kind: Node
  name: ip-10-0-1-23.ec2.internal
  uid: 9b1d2e3f-0000-4000-8000-00000000abcd
reason: DisruptionBlocked
message: 'Cannot disrupt Node: pdb "shop/web" prevents pod evictions'
source:
  component: karpenter
  host: karpenter-6d5f7c9b8-abcde
firstTimestamp: "2024-05-01T10:00:00Z"
lastTimestamp: "2024-05-01T10:05:00Z"
count: 6
type: Warning
reportingComponent: karpenter
reportingInstance: karpenter-6d5f7c9b8-abcde
eventTime: null
related:
  apiVersion: karpenter.sh/v1
  kind: NodeClaim
  name: default-x7k2p
)";

constexpr std::string_view kSeriesEvent = R"(
apiVersion: v1
kind: Event
metadata: {name: web.1, namespace: shop}
involvedObject: {kind: Pod, name: web-1, namespace: shop}
reason: FailedScheduling
message: 0/3 nodes are available
type: Warning
action: Scheduling
reportingComponent: default-scheduler
reportingInstance: default-scheduler-master
eventTime: "2024-05-01T10:00:00.123456Z"
series:
  count: 4
  lastObservedTime: "2024-05-01T10:04:00.654321Z"
)";

constexpr std::string_view kSecret = R"(
apiVersion: v1
kind: Secret
metadata:
  name: web-tls
  namespace: shop
type: kubernetes.io/tls
data:
  tls.crt: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t
  tls.key: LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0t
  ca.crt: Y2E=
immutable: true
)";

constexpr std::string_view kConfigMap = R"(
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-config
  namespace: shop
data:
  LOG_LEVEL: info
  app.yaml: |
    listen: :8080
    cache: true
binaryData:
  logo.png: iVBORw0KGgo=
immutable: false
)";

constexpr std::string_view kNodeLease = R"(
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata:
  name: ip-10-0-1-23.ec2.internal
  namespace: kube-node-lease
  ownerReferences:
  - {apiVersion: v1, kind: Node, name: ip-10-0-1-23.ec2.internal, uid: n-1}
spec:
  holderIdentity: ip-10-0-1-23.ec2.internal
  leaseDurationSeconds: 40
  renewTime: "2024-05-01T10:59:58.123456Z"
)";

constexpr std::string_view kLeaderLease = R"(
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata:
  name: nodewright-leader-election
  namespace: nodewright
spec:
  holderIdentity: nodewright-5c9d_0f1e2d3c
  leaseDurationSeconds: 15
  acquireTime: "2024-05-01T09:00:00.000001Z"
  renewTime: "2024-05-01T10:59:59.500000Z"
  leaseTransitions: 3
  strategy: OldestEmulationVersion
  preferredHolder: nodewright-7a8b_11223344
)";

struct RoundTripCase {
  std::string name;
  std::string_view manifest;
  std::vector<std::string> unknownPointers;
};

void PrintTo(const RoundTripCase& c, std::ostream* os) {
  *os << c.name;
}

class ClusterObjectRoundTripTest : public ::testing::TestWithParam<RoundTripCase> {};

TEST_P(ClusterObjectRoundTripTest, DecodeEncodeKeepsEveryField) {
  Json input = parseYaml(GetParam().manifest);
  Json output = roundTrip(input);
  EXPECT_EQ(comparable(output), comparable(input));
  for (const std::string& pointer : GetParam().unknownPointers) {
    EXPECT_EQ(at(output, pointer), at(input, pointer)) << pointer;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, ClusterObjectRoundTripTest,
    ::testing::Values(RoundTripCase{"Namespace", kNamespace, {"/status/conditions"}},
                      RoundTripCase{"Event", kEvent, {"/related", "/eventTime"}},
                      RoundTripCase{"SeriesEvent", kSeriesEvent, {"/eventTime", "/series"}},
                      RoundTripCase{"Secret", kSecret, {}},
                      RoundTripCase{"ConfigMap", kConfigMap, {}},
                      RoundTripCase{"NodeLease", kNodeLease, {}},
                      RoundTripCase{"LeaderLease", kLeaderLease, {}}),
    [](const auto& info) { return info.param.name; });

TEST(LeaseTest, TimesKeepMicroseconds) {
  auto decoded = decode(parseYaml(kLeaderLease));
  const Lease* lease = decoded.object->as<Lease>();
  ASSERT_NE(lease, nullptr);
  EXPECT_EQ(lease->spec.renewTime.toString(), "2024-05-01T10:59:59.500000Z");
  EXPECT_EQ(lease->spec.acquireTime.toString(), "2024-05-01T09:00:00.000001Z");
  EXPECT_EQ(lease->spec.leaseDurationSeconds, 15);
  EXPECT_EQ(lease->spec.leaseTransitions, 3);
}

TEST(SecretTest, ValueDecodesBase64AndPrefersStringData) {
  auto decoded = decode(parseYaml(kSecret));
  Secret secret = *decoded.object->as<Secret>();
  EXPECT_EQ(secretValue(secret, "ca.crt"), "ca");
  EXPECT_EQ(secretValue(secret, "tls.crt"), "-----BEGIN CERTIFICATE-----");
  secret.stringData["ca.crt"] = "override";
  EXPECT_EQ(secretValue(secret, "ca.crt"), "override");
  auto missing = secretValue(secret, "token");
  ASSERT_FALSE(missing);
  EXPECT_TRUE(missing.error().is(core::Code::NotFound));
  secret.data["bad"] = "abc";
  auto bad = secretValue(secret, "bad");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(), "secret key \"bad\": illegal base64 data at input byte 0");
}

TEST(SecretTest, TypeDefaultsToOpaque) {
  auto decoded = decode(parseYaml("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n"),
                        /*defaults=*/true);
  ASSERT_TRUE(decoded.errors.empty());
  EXPECT_EQ(decoded.object->as<Secret>()->type, "Opaque");
}

struct InvalidCase {
  std::string name;
  std::string manifest;
  Strings errors;
};

void PrintTo(const InvalidCase& c, std::ostream* os) {
  *os << c.name;
}

class ClusterObjectValidationTest : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(ClusterObjectValidationTest, ReportsEveryErrorWithItsPath) {
  EXPECT_EQ(validationErrors(GetParam().manifest), GetParam().errors);
}

constexpr std::string_view kConfigKeySyntax =
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. "
    "'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
    "'[-._a-zA-Z0-9]+')";

std::string secret(std::string_view body) {
  return "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n" + std::string(body);
}

std::string configMap(std::string_view body) {
  return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n" + std::string(body);
}

std::string lease(std::string_view spec) {
  return "apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata: {name: l}\nspec:\n" +
         std::string(spec);
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, ClusterObjectValidationTest,
    ::testing::Values(
        InvalidCase{"SecretBadBase64",
                    secret("data:\n  password: cGFzc3dvcmQ\n  token: dG9r!W4=\n"),
                    {"data[password]: Invalid value: \"<redacted>\": illegal base64 data at "
                     "input byte 8",
                     "data[token]: Invalid value: \"<redacted>\": illegal base64 data at input "
                     "byte 4"}},
        InvalidCase{"SecretBadKey",
                    secret("data:\n  my key: YQ==\n  ..data: YQ==\n"),
                    {"data[..data]: Invalid value: \"..data\": must not start with '..'",
                     "data[my key]: Invalid value: \"my key\": " + std::string(kConfigKeySyntax)}},
        InvalidCase{"TlsSecretWithoutKey",
                    secret("type: kubernetes.io/tls\ndata:\n  tls.crt: YQ==\n"),
                    {"data[tls.key]: Required value"}},
        InvalidCase{"TlsSecretKeyFromStringData",
                    secret("type: kubernetes.io/tls\ndata:\n  tls.crt: YQ==\n"
                           "stringData:\n  tls.key: k\n"),
                    {}},
        InvalidCase{"DockerConfigSecretWithoutKey",
                    secret("type: kubernetes.io/dockerconfigjson\n"),
                    {"data[.dockerconfigjson]: Required value"}},
        InvalidCase{"SecretTooLarge",
                    secret("stringData:\n  big: " + std::string(1024 * 1024 + 1, 'x') + "\n"),
                    {"data: Too long: must have at most 1048576 bytes"}},
        InvalidCase{"SecretDataNotAString",
                    secret("data:\n  n: 5\n"),
                    {"data[n]: Invalid value: 5: must be of type string"}},
        InvalidCase{"ConfigMapDuplicateKey",
                    configMap("data: {logo: x}\nbinaryData: {logo: eA==}\n"),
                    {"data[logo]: Invalid value: \"logo\": duplicate of key present in "
                     "binaryData"}},
        InvalidCase{"ConfigMapBadBinary",
                    configMap("binaryData: {logo: eA=}\n"),
                    {"binaryData[logo]: Invalid value: \"eA=\": illegal base64 data at input "
                     "byte 3"}},
        InvalidCase{"NamespaceNameNotADnsLabel",
                    "apiVersion: v1\nkind: Namespace\nmetadata: {name: Shop.EU}\n",
                    {"metadata.name: Invalid value: \"Shop.EU\": a lowercase RFC 1123 label "
                     "must consist of lower case alphanumeric characters or '-', and must start "
                     "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "
                     "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"}},
        InvalidCase{"NamespacePhase",
                    "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n"
                    "status: {phase: Deleting}\n",
                    {"status.phase: Unsupported value: \"Deleting\": supported values: "
                     "\"Active\", \"Terminating\""}},
        InvalidCase{"EventType",
                    "apiVersion: v1\nkind: Event\nmetadata: {name: e, namespace: shop}\n"
                    "involvedObject: {kind: Pod, name: p, namespace: shop}\ntype: Error\n",
                    {"type: Unsupported value: \"Error\": supported values: \"Normal\", "
                     "\"Warning\""}},
        InvalidCase{"EventNamespaceMismatch",
                    "apiVersion: v1\nkind: Event\nmetadata: {name: e, namespace: shop}\n"
                    "involvedObject: {kind: Pod, name: p, namespace: billing}\ncount: -1\n",
                    {"count: Invalid value: -1: must be greater than or equal to 0",
                     "involvedObject.namespace: Invalid value: \"billing\": does not match "
                     "event.namespace"}},
        InvalidCase{"EventForClusterObjectOutsideDefault",
                    "apiVersion: v1\nkind: Event\nmetadata: {name: e, namespace: shop}\n"
                    "involvedObject: {kind: Node, name: n1}\n",
                    {"involvedObject.namespace: Invalid value: \"\": does not match "
                     "event.namespace"}},
        InvalidCase{"LeaseDurationZero",
                    lease("  leaseDurationSeconds: 0\n  leaseTransitions: -1\n"),
                    {"spec.leaseTransitions: Invalid value: -1: must be greater than or equal "
                     "to 0",
                     "spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0"}},
        InvalidCase{"LeaseBadTime",
                    lease("  renewTime: yesterday\n"),
                    {"spec.renewTime: Invalid value: \"yesterday\": parsing time \"yesterday\": "
                     "not RFC 3339 (like \"2006-01-02T15:04:05Z07:00\")"}}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace nodewright::api::corev1
