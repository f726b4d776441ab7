// The YAML blocks of seeds 001 and 002, read from NW_SHARED_DIR at test time, are accepted as
// seed-era objects and convert to v1 and back without loss.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/conversion/convert.h"
#include "api/conversion/ec2nodeclass_conversion.h"
#include "api/conversion/nodepool_conversion.h"
#include "api/object.h"
#include "api/yaml.h"

namespace nodewright::api::seedera {
namespace {

namespace fs = std::filesystem;

// One fenced block of a seed, parsed with the design documents' "..." placeholders elided.
struct SeedBlock {
  std::string name;  // "Seed001Block1": seed number and position of the fence in the file
  Document document;
};

void PrintTo(const SeedBlock& block, std::ostream* os) {
  *os << block.name;
}

std::string readSeed(const std::string& prefix) {
  for (const auto& entry : fs::directory_iterator(fs::path(NW_SHARED_DIR) / "seeds")) {
    if (entry.path().filename().string().rfind(prefix, 0) == 0) {
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      return text.str();
    }
  }
  return "";
}

// Every ``` fence (with or without a language; seed 002's has none) that holds YAML.
std::vector<SeedBlock> seedBlocks(const std::string& seed) {
  std::vector<SeedBlock> out;
  std::istringstream in(readSeed(seed + "_"));
  std::string line;
  std::string body;
  bool inside = false;
  int fence = 0;
  while (std::getline(in, line)) {
    if (line.rfind("```", 0) != 0) {
      body += inside ? line + "\n" : "";
      continue;
    }
    if (inside) {
      ++fence;
      YamlOptions options;
      options.allowElisions = true;
      auto docs = parseDocuments(body, options);
      if (docs && docs->size() == 1) {
        out.push_back({"Seed" + seed + "Block" + std::to_string(fence), docs->front()});
      }
      body.clear();
    }
    inside = !inside;
  }
  return out;
}

bool isNodeTemplate(const Json& v) {
  return v.is_object() && v.value("kind", "") == "AWSNodeTemplate";
}

// Seed 002's block is a bare ProvisionerSpec with its proposed template.
bool isProvisionerTemplate(const Json& v) {
  return v.is_object() && v.size() == 1 && v.contains("spec") && v["spec"].is_object() &&
         v["spec"].contains("template");
}

std::vector<SeedBlock> nodeTemplateBlocks() {
  std::vector<SeedBlock> out;
  for (SeedBlock& b : seedBlocks("001")) {
    if (isNodeTemplate(b.document.value)) {
      out.push_back(std::move(b));
    }
  }
  return out;
}

std::vector<SeedBlock> provisionerBlocks() {
  std::vector<SeedBlock> out;
  for (SeedBlock& b : seedBlocks("002")) {
    if (isProvisionerTemplate(b.document.value)) {
      // It has only `spec:`; read it as the Provisioner it proposes to change.
      b.document.value["apiVersion"] = "karpenter.sh/v1alpha5";
      b.document.value["kind"] = "Provisioner";
      out.push_back(std::move(b));
    }
  }
  return out;
}

ObjectOptions optionsFor(const Document& doc) {
  ObjectOptions options;
  options.elided = doc.elided;
  // Seed 001's first AWSNodeTemplate and seed 002's template block have no metadata at all:
  // they show a spec, not an object to create, so the name is not required of them.
  options.requireName = doc.value.contains("metadata");
  return options;
}

std::string render(const FieldErrors& errors) {
  std::string out;
  for (const FieldError& e : errors) {
    out += e.toString() + "\n";
  }
  return out;
}

TEST(SeedManifestsTest, FindsTheSeedsYamlBlocks) {
  EXPECT_EQ(nodeTemplateBlocks().size(), 2u);
  EXPECT_EQ(provisionerBlocks().size(), 1u);
}

class SeedBlockTest : public ::testing::TestWithParam<SeedBlock> {};

TEST_P(SeedBlockTest, IsAcceptedAsWritten) {
  DecodedObject decoded =
      decodeObject(GetParam().document.value, builtinRegistry(), optionsFor(GetParam().document));
  EXPECT_TRUE(GetParam().document.errors.empty()) << render(GetParam().document.errors);
  EXPECT_TRUE(decoded.errors.empty()) << render(decoded.errors);
  ASSERT_TRUE(decoded.object);
  EXPECT_FALSE(decoded.object->info().convertsTo.empty());
}

TEST_P(SeedBlockTest, ConvertsToV1AndBackWithoutLoss) {
  const ObjectOptions options = optionsFor(GetParam().document);
  DecodedObject decoded = decodeObject(GetParam().document.value, builtinRegistry(), options);
  ASSERT_TRUE(decoded.errors.empty()) << render(decoded.errors);
  const Json original = decoded.object->toJson();

  auto v1 = conversion::convertToV1Fields(GetParam().document.value, options);
  ASSERT_TRUE(v1) << render(v1.error());
  EXPECT_EQ((*v1)["apiVersion"].get<std::string>() + " " + (*v1)["kind"].get<std::string>(),
            decoded.object->info().convertsTo);
  auto back = conversion::convertFromV1Fields(*v1, decoded.object->info().apiVersion());
  ASSERT_TRUE(back) << render(back.error());
  EXPECT_EQ(back->dump(2), original.dump(2));
}

std::vector<SeedBlock> allBlocks() {
  std::vector<SeedBlock> out = nodeTemplateBlocks();
  for (SeedBlock& b : provisionerBlocks()) {
    out.push_back(std::move(b));
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Seeds, SeedBlockTest, ::testing::ValuesIn(allBlocks()),
                         [](const auto& info) { return info.param.name; });

DecodedObject decodeBlock(const SeedBlock& block) {
  return decodeObject(block.document.value, builtinRegistry(), optionsFor(block.document));
}

TEST(Seed001Test, TheFirstTemplateKeepsItsPerInterfaceSelectors) {
  std::vector<SeedBlock> blocks = nodeTemplateBlocks();
  ASSERT_EQ(blocks.size(), 2u);
  DecodedObject decoded = decodeBlock(blocks[0]);
  ASSERT_TRUE(decoded.object);
  auto nodeClass = conversion::toEC2NodeClass(*decoded.object->as<AWSNodeTemplate>());
  ASSERT_TRUE(nodeClass) << render(nodeClass.error());
  Json spec = toJson(nodeClass->spec);
  EXPECT_EQ(spec["subnetSelectorTerms"], Json::parse(R"([{"tags":{"label":"subnet-1"}}])"));
  EXPECT_EQ(spec["securityGroupSelectorTerms"],
            Json::parse(R"([{"tags":{"securityGroup":"sg-1"}}])"));
  ASSERT_EQ(spec["networkInterfaces"].size(), 1u);
  EXPECT_EQ(spec["networkInterfaces"][0]["subnetSelectorTerms"],
            Json::parse(R"([{"tags":{"subnet":"subnet-2"}}])"));
  EXPECT_EQ(spec["networkInterfaces"][0]["securityGroupSelectorTerms"],
            Json::parse(R"([{"tags":{"securityGroup":"sg-2"}}])"));
}

TEST(Seed001Test, TheProposedTemplateConvertsItsNetworkInterfaces) {
  std::vector<SeedBlock> blocks = nodeTemplateBlocks();
  ASSERT_EQ(blocks.size(), 2u);
  const Document& doc = blocks[1].document;
  // The second interface ("- { ... }") and the quoted placeholders are elided, not decoded.
  EXPECT_NE(std::find(doc.elided.begin(), doc.elided.end(), "spec.networkInterfaces[1]"),
            doc.elided.end());
  EXPECT_NE(
      std::find(doc.elided.begin(), doc.elided.end(), "spec.networkInterfaces[0].description"),
      doc.elided.end());
  DecodedObject decoded = decodeBlock(blocks[1]);
  ASSERT_TRUE(decoded.object);
  auto nodeClass = conversion::toEC2NodeClass(*decoded.object->as<AWSNodeTemplate>());
  ASSERT_TRUE(nodeClass) << render(nodeClass.error());
  EXPECT_EQ(toJson(nodeClass->spec)["networkInterfaces"], Json::parse(R"([{
      "associateCarrierIPAddress": false,
      "associatePublicIPAddress": false,
      "deleteOnTermination": false,
      "deviceIndex": 0,
      "interfaceType": "interface",
      "networkCardIndex": 0,
      "ipv4PrefixCount": 1,
      "ipv6PrefixCount": 1}])"));
  // No amiSelector was given: v1's required amiSelectorTerms select the default family's AMI.
  EXPECT_EQ(toJson(nodeClass->spec)["amiSelectorTerms"],
            Json::parse(R"([{"alias":"al2@latest"}])"));
}

TEST(Seed002Test, TheTemplateFormIsRecordedForTheWayBack) {
  std::vector<SeedBlock> blocks = provisionerBlocks();
  ASSERT_EQ(blocks.size(), 1u);
  DecodedObject decoded = decodeBlock(blocks[0]);
  ASSERT_TRUE(decoded.object);
  const Provisioner& p = *decoded.object->as<Provisioner>();
  ASSERT_TRUE(p.spec.template_);  // every field of it is a placeholder
  auto pool = conversion::toNodePool(p);
  ASSERT_TRUE(pool) << render(pool.error());
  EXPECT_EQ(pool->metadata.annotations.at("compatibility.karpenter.sh/v1alpha5-template-fields"),
            "");
}

}  // namespace
}  // namespace nodewright::api::seedera
