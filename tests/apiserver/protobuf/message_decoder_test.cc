#include "apiserver/protobuf/message_decoder.h"

#include <gtest/gtest.h>

#include "apiserver/protobuf/messages.h"
#include "apiserver/protobuf/wire_builder.h"

namespace nodewright::apiserver::protobuf {
namespace {

using api::Json;
using testing::Proto;
using testing::varintBytes;

Json decoded(const Proto& proto, const MessageDescriptor& type) {
  auto json = decodeMessage(proto.str(), type);
  EXPECT_TRUE(json) << json.error().message();
  return json ? *json : Json();
}

// The message type of `kind`'s field named `json`, e.g. DeploymentSpec for ("spec").
const MessageDescriptor& nested(const MessageDescriptor& kind, std::string_view json) {
  for (const Field& field : kind.fields) {
    if (field.json == json && field.message != nullptr) {
      return *field.message;
    }
  }
  ADD_FAILURE() << kind.name << " has no message field " << json;
  return kind;
}

std::string errorOf(const Proto& proto, const MessageDescriptor& type) {
  auto json = decodeMessage(proto.str(), type);
  EXPECT_FALSE(json) << json->dump();
  return json ? "" : json.error().message();
}

TEST(MessageDecoderTest, SkipsUnknownFieldsOfEveryWireType) {
  Proto meta;
  meta.varint(99, 5).bytes(1, "web").fixed64(98, 1).bytes(97, "later field");
  meta.fixed32(96, 2).bytes(3, "team").message(95, Proto().bytes(1, "nested"));
  EXPECT_EQ(decoded(meta, kObjectMeta), Json::parse(R"({"name": "web", "namespace": "team"})"));
}

TEST(MessageDecoderTest, OmitsZeroValuesUnlessTheGoFieldKeepsThem) {
  Proto spec;
  spec.varint(1, 0).varint(7, 0).varint(5, 0).varint(6, 0);
  // replicas and revisionHistoryLimit are pointers; paused and minReadySeconds are omitempty.
  EXPECT_EQ(decoded(spec, nested(kDeployment, "spec")),
            Json::parse(R"({"replicas": 0, "revisionHistoryLimit": 0})"));

  Proto container;
  container.bytes(1, "").bytes(2, "").varint(16, 0).message(6, Proto().varint(3, 0).bytes(4, ""));
  EXPECT_EQ(decoded(container, kContainer),
            Json::parse(R"({"name": "", "ports": [{"containerPort": 0}]})"));
}

TEST(MessageDecoderTest, WritesFieldsInGoStructOrderNotWireOrder) {
  Proto configMap;
  configMap.entry(2, "k", "v").varint(4, 1).message(1, Proto().bytes(1, "cm"));
  Json json = decoded(configMap, kConfigMap);
  EXPECT_EQ(json.dump(), R"({"metadata":{"name":"cm"},"immutable":true,"data":{"k":"v"}})");
}

TEST(MessageDecoderTest, SortsMapKeysAndKeepsEmptyValues) {
  Proto meta;
  meta.entry(11, "b", "").entry(11, "a", "1").entry(11, "c", "3").entry(11, "a", "2");
  EXPECT_EQ(decoded(meta, kObjectMeta).dump(), R"({"labels":{"a":"2","b":"","c":"3"}})");
}

TEST(MessageDecoderTest, WritesBytesAsBase64) {
  Proto secret;
  secret.entry(2, "bin", std::string("\xff\x00\x01", 3)).entry(4, "plain", "text");
  secret.bytes(3, "Opaque");
  EXPECT_EQ(decoded(secret, kSecret),
            Json::parse(R"({"data": {"bin": "/wAB"}, "stringData": {"plain": "text"},
                            "type": "Opaque"})"));
}

TEST(MessageDecoderTest, WritesTimesAsRfc3339AndZeroTimesAsNull) {
  Proto meta;
  meta.message(8, Proto()).message(9, Proto().varint(1, 1700000000).varint(2, 5));
  EXPECT_EQ(decoded(meta, kObjectMeta), Json::parse(R"({"creationTimestamp": null,
                            "deletionTimestamp": "2023-11-14T22:13:20Z"})"));
}

TEST(MessageDecoderTest, WritesIntOrStringAsNumberOrString) {
  Proto rolling;
  rolling.message(1, Proto().varint(1, 0).varint(2, 0));  // maxUnavailable: 0, a set pointer
  Proto surge;
  surge.varint(1, 1).varint(2, 0).bytes(3, "25%");
  Proto strategy;
  strategy.bytes(1, "RollingUpdate").message(2, rolling.message(2, surge));
  Proto spec;
  spec.message(4, strategy);
  EXPECT_EQ(decoded(spec, nested(kDeployment, "spec")),
            Json::parse(R"({"strategy": {"type": "RollingUpdate",
                            "rollingUpdate": {"maxUnavailable": 0, "maxSurge": "25%"}}})"));
}

TEST(MessageDecoderTest, RejectsAnImpossibleIntOrStringType) {
  Proto pdbSpec;
  pdbSpec.message(1, Proto().varint(1, 2));
  EXPECT_EQ(errorOf(pdbSpec, nested(kPodDisruptionBudget, "spec")),
            "protobuf: PodDisruptionBudgetSpec.minAvailable: impossible IntOrString.Type 2");
}

TEST(MessageDecoderTest, SignExtendsNegativeInt32AndKeepsInt64) {
  Proto probe;
  probe.varint(2, static_cast<std::uint64_t>(-1)).varint(7, 1ull << 40);
  Proto container;
  container.bytes(1, "c").message(10, probe);
  EXPECT_EQ(decoded(container, kContainer),
            Json::parse(R"({"name": "c", "livenessProbe": {"initialDelaySeconds": -1,
                            "terminationGracePeriodSeconds": 1099511627776}})"));
}

TEST(MessageDecoderTest, ReadsRepeatedNumbersPackedOrNot) {
  Proto context;
  context.bytes(4, varintBytes(1) + varintBytes(2)).varint(4, 3);
  EXPECT_EQ(decoded(context, kPodSecurityContext),
            Json::parse(R"({"supplementalGroups": [1, 2, 3]})"));
}

TEST(MessageDecoderTest, MergesEmbeddedStructsIntoTheParentObject) {
  Proto keyRef;
  keyRef.message(1, Proto().bytes(1, "settings")).bytes(2, "mode");
  Proto env;
  env.bytes(1, "MODE").message(3, Proto().message(3, keyRef));
  Proto httpGet;
  httpGet.bytes(1, "/healthz").message(2, Proto().varint(1, 0).varint(2, 8080));
  Proto container;
  container.bytes(1, "app").message(7, env).message(
      11, Proto().message(1, Proto().message(2, httpGet)));
  EXPECT_EQ(decoded(container, kContainer), Json::parse(R"({
    "name": "app",
    "env": [{"name": "MODE", "valueFrom": {"configMapKeyRef": {"name": "settings", "key": "mode"}}}],
    "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080}}})"));
}

TEST(MessageDecoderTest, DecodesResourceQuantitiesByName) {
  Proto resources;
  resources.entry(1, "memory", Proto().bytes(1, "64Mi")).entry(2, "cpu", Proto().bytes(1, "100m"));
  resources.entry(2, "empty", Proto());
  EXPECT_EQ(decoded(resources, kResourceRequirements), Json::parse(R"({"limits": {"memory": "64Mi"},
                            "requests": {"cpu": "100m", "empty": "0"}})"));
}

TEST(MessageDecoderTest, DecodesSchedulingFieldsOfAPodSpec) {
  Proto requirement;
  requirement.bytes(1, "karpenter.sh/capacity-type").bytes(2, "In").bytes(3, "spot");
  Proto affinity;
  affinity.message(1, Proto().message(1, Proto().message(1, Proto().message(1, requirement))));
  Proto toleration;
  toleration.bytes(1, "dedicated").bytes(2, "Exists").bytes(4, "NoSchedule").varint(5, 0);
  Proto volume;
  volume.bytes(1, "config")
      .message(2, Proto().message(19, Proto().message(1, Proto().bytes(1, "cm"))));
  Proto spec;
  spec.message(1, volume).message(2, Proto().bytes(1, "app")).entry(7, "pool", "general");
  spec.message(18, affinity).message(22, toleration).varint(4, 30).varint(21, 0);
  EXPECT_EQ(decoded(spec, kPodSpec), Json::parse(R"({
    "volumes": [{"name": "config", "configMap": {"name": "cm"}}],
    "containers": [{"name": "app"}],
    "terminationGracePeriodSeconds": 30,
    "nodeSelector": {"pool": "general"},
    "automountServiceAccountToken": false,
    "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
      "nodeSelectorTerms": [{"matchExpressions": [
        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]}]}]}}},
    "tolerations": [{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule",
                     "tolerationSeconds": 0}]})"));
}

TEST(MessageDecoderTest, ReplacesInvalidUtf8LikeGo) {
  Proto meta;
  meta.bytes(1,
             "a\xff"
             "b")
      .entry(12, "k\xc0", "v");
  EXPECT_EQ(decoded(meta, kObjectMeta),
            Json::parse("{\"name\": \"a\xef\xbf\xbd"
                        "b\", "
                        "\"annotations\": {\"k\xef\xbf\xbd\": \"v\"}}"));
}

TEST(MessageDecoderTest, RejectsAKnownFieldWithTheWrongWireTypeNamingItsPath) {
  Proto pod;
  pod.message(2, Proto().message(2, Proto().varint(1, 7)));
  EXPECT_EQ(errorOf(pod, kPod), "protobuf: Pod.spec.containers.name: unexpected wire type varint");
  Proto meta;
  meta.fixed32(7, 1);
  EXPECT_EQ(errorOf(meta, kObjectMeta),
            "protobuf: ObjectMeta.generation: unexpected wire type fixed32");
  Proto packedSingle;
  packedSingle.bytes(2, varintBytes(1));
  EXPECT_EQ(errorOf(packedSingle, kPodSecurityContext),
            "protobuf: PodSecurityContext.runAsUser: unexpected wire type length-delimited");
}

TEST(MessageDecoderTest, ReportsTruncationInsideNestedMessages) {
  Proto deployment;
  deployment.message(2, Proto().message(3, Proto().message(2, Proto().raw("\x20\xff"))));
  EXPECT_EQ(errorOf(deployment, kDeployment),
            "protobuf: Deployment.spec.template.spec.terminationGracePeriodSeconds: unexpected end "
            "of input reading a varint");
  Proto meta;
  meta.message(11, Proto().raw("\x0a\x05k"));
  EXPECT_EQ(errorOf(meta, kObjectMeta),
            "protobuf: ObjectMeta.labels: length 5 runs past the end of the input (1 bytes left)");
}

TEST(MessageDecoderTest, RejectsMapEntriesWithMistypedKeys) {
  Proto meta;
  meta.message(11, Proto().varint(1, 3));
  EXPECT_EQ(errorOf(meta, kObjectMeta),
            "protobuf: ObjectMeta.labels: map entry field 1 has wire type varint");
}

TEST(MessageDecoderTest, RejectsTimesOutsideRfc3339) {
  Proto meta;
  meta.message(8, Proto().varint(1, 300000000000ull));
  EXPECT_EQ(errorOf(meta, kObjectMeta),
            "protobuf: ObjectMeta.creationTimestamp: time 300000000000s since the epoch is "
            "outside years 1 to 9999");
}

}  // namespace
}  // namespace nodewright::apiserver::protobuf
