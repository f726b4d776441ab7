#include "apiserver/protobuf/protobuf.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "apiserver/protobuf/wire_builder.h"

namespace nodewright::apiserver::protobuf {
namespace {

namespace fs = std::filesystem;
using api::Json;
using testing::envelope;
using testing::Proto;

const fs::path kFixtures = fs::path(NW_SOURCE_DIR) / "tests/apiserver/protobuf/fixtures";

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Each fixture is a body kubectl 1.32 sent (NAME.pb) and what `--dry-run=client -o json` prints
// for the same command (NAME.json); see fixtures/README.md.
class KubectlFixtureTest : public ::testing::TestWithParam<const char*> {};

TEST_P(KubectlFixtureTest, DecodesToTheJsonKubectlWouldHaveSent) {
  std::string body = readFile(kFixtures / (std::string(GetParam()) + ".pb"));
  std::string expected = readFile(kFixtures / (std::string(GetParam()) + ".json"));
  ASSERT_FALSE(body.empty()) << "missing fixture " << GetParam();
  auto decoded = protobufToJson(body);
  ASSERT_TRUE(decoded) << decoded.error().message();
  // Ordered comparison: field order must follow the Go structs, as kubectl's own JSON does.
  EXPECT_EQ(decoded->dump(2), Json::parse(expected).dump(2));
}

INSTANTIATE_TEST_SUITE_P(Captured, KubectlFixtureTest,
                         ::testing::Values("namespace", "configmap", "secret_generic",
                                           "secret_docker_registry", "deployment",
                                           "deployment_command", "pdb_min_available",
                                           "pdb_max_unavailable", "delete_options"));

TEST(ProtobufToJsonTest, DecodesAnEvictionWithDeleteOptions) {
  Proto meta;
  meta.bytes(1, "web-0").bytes(3, "default").message(8, Proto());
  Proto options;
  options.varint(1, 0).message(2, Proto().bytes(1, "uid-1")).bytes(4, "Foreground");
  options.bytes(5, "All");
  Proto eviction;
  eviction.message(1, meta).message(2, options);

  auto decoded = protobufToJson(envelope("policy/v1", "Eviction", eviction));
  ASSERT_TRUE(decoded) << decoded.error().message();
  EXPECT_EQ(*decoded, Json::parse(R"({
    "kind": "Eviction", "apiVersion": "policy/v1",
    "metadata": {"name": "web-0", "namespace": "default", "creationTimestamp": null},
    "deleteOptions": {"gracePeriodSeconds": 0, "preconditions": {"uid": "uid-1"},
                      "propagationPolicy": "Foreground", "dryRun": ["All"]}})"));
}

TEST(ProtobufToJsonTest, AcceptsDeleteOptionsUnderAnyGroupVersion) {
  Proto options;
  options.varint(3, 1);
  auto decoded = protobufToJson(envelope("meta.k8s.io/v1", "DeleteOptions", options));
  ASSERT_TRUE(decoded) << decoded.error().message();
  EXPECT_EQ(*decoded, Json::parse(R"({"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1",
                                      "orphanDependents": true})"));
}

TEST(ProtobufToJsonTest, RejectsABodyWithoutTheMagicPrefix) {
  auto decoded = protobufToJson("{\"kind\":\"Namespace\"}");
  ASSERT_FALSE(decoded);
  EXPECT_TRUE(decoded.error().is(core::Code::Invalid));
  EXPECT_EQ(decoded.error().message(),
            "protobuf: the body does not start with the Kubernetes protobuf prefix");
  EXPECT_FALSE(protobufToJson(std::string("k8s", 3)));
}

TEST(ProtobufToJsonTest, NamesAnUnknownKind) {
  auto decoded = protobufToJson(envelope("batch/v1", "Job", Proto().message(1, Proto())));
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error().message(),
            "protobuf: no kind \"Job\" is registered for version \"batch/v1\"");
  // A known kind name under a group that does not serve it is unknown too.
  EXPECT_FALSE(protobufToJson(envelope("apps/v1", "Namespace", Proto())));
}

TEST(ProtobufToJsonTest, RejectsAMissingKindAndCompressedEnvelopes) {
  auto noKind = protobufToJson(envelope("v1", "", Proto()));
  ASSERT_FALSE(noKind);
  EXPECT_EQ(noKind.error().message(), "protobuf: the object has no kind");

  auto gzip = protobufToJson(envelope("v1", "Namespace", Proto(), "gzip"));
  ASSERT_FALSE(gzip);
  EXPECT_EQ(gzip.error().message(), "protobuf: unsupported content encoding \"gzip\"");
}

TEST(ProtobufToJsonTest, ReportsATruncatedEnvelope) {
  Proto unknown;
  unknown.message(1, Proto().bytes(1, "v1").bytes(2, "Namespace"))
      .raw(
          "\x12\x0a"
          "abc");
  auto cut = protobufToJson(std::string("k8s\0", 4) + unknown.str());
  ASSERT_FALSE(cut);
  EXPECT_EQ(cut.error().message(),
            "protobuf: runtime.Unknown: length 10 runs past the end of the input (3 bytes left)");
}

TEST(ProtobufToJsonTest, LocatesMalformedDataInsideTheObject) {
  // metadata.labels holds an entry whose value claims more bytes than it has.
  Proto meta;
  meta.bytes(1, "x").message(11, Proto().bytes(1, "k").raw("\x12\x09v"));
  auto decoded = protobufToJson(envelope("v1", "Namespace", Proto().message(1, meta)));
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error().message(),
            "protobuf: Namespace.metadata.labels: length 9 runs past the end of the input "
            "(1 bytes left)");
}

TEST(ProtobufToJsonTest, EveryTruncationInsideACapturedObjectFails) {
  std::string body = readFile(kFixtures / "deployment.pb");
  ASSERT_GT(body.size(), 10u);
  // magic, typeMeta {0x0a, length, ...}, raw {0x12, two-byte length, object}, then two empty
  // strings (4 bytes). A cut on a field boundary is valid protobuf; a cut inside raw is not.
  std::size_t rawTag = 4 + 2 + static_cast<unsigned char>(body[5]);
  ASSERT_EQ(body[rawTag], '\x12');
  for (std::size_t size = rawTag + 1; size < body.size() - 4; ++size) {
    auto decoded = protobufToJson(std::string_view(body).substr(0, size));
    ASSERT_FALSE(decoded) << "a prefix of " << size << " bytes decoded";
    EXPECT_TRUE(decoded.error().is(core::Code::Invalid));
  }
}

TEST(ProtobufToJsonTest, CorruptedBytesNeverCrash) {
  std::string body = readFile(kFixtures / "deployment.pb");
  ASSERT_FALSE(body.empty());
  int decoded = 0;
  for (std::size_t i = 4; i < body.size(); ++i) {
    for (unsigned char value : {0x00, 0x07, 0x80, 0xff}) {
      std::string corrupt = body;
      corrupt[i] = static_cast<char>(value);
      if (protobufToJson(corrupt)) {
        ++decoded;
      }
    }
  }
  // Some flips only change a string's bytes; the point is that none of them crashes.
  EXPECT_GT(decoded, 0);
}

}  // namespace
}  // namespace nodewright::apiserver::protobuf
