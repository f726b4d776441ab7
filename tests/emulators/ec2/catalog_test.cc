// The built-in catalog against the reference data in NW_SHARED_DIR, and loadCatalog's errors.
#include "emulators/ec2/catalog.h"

#include <gtest/gtest.h>

#include <ostream>
#include <set>
#include <string>

namespace nodewright::emulators::ec2 {
namespace {

const std::string kDataFile = std::string(NW_SHARED_DIR) + "/data/aws-instance-types.json";

// Loaded once: the file is 2 MB and every test here only reads it.
const Catalog& fullCatalog() {
  static const Catalog catalog = [] {
    auto loaded = loadCatalog(kDataFile);
    EXPECT_TRUE(loaded) << loaded.error().message();
    return loaded ? std::move(*loaded) : Catalog();
  }();
  return catalog;
}

TEST(CatalogTest, BuiltinHoldsEveryCommonFamily) {
  Catalog builtin = builtinCatalog();
  std::set<std::string> families;
  for (const InstanceTypeInfo& t : builtin.all()) {
    families.insert(t.family);
  }
  for (const char* family : {"m5", "m6i", "m7i", "c5", "c6i", "c7i", "r5", "r6i", "m6g", "m7g",
                             "c7g", "t3", "g5", "p4d", "p5", "trn1", "inf2"}) {
    EXPECT_TRUE(families.count(family)) << family;
  }
  for (const char* name :
       {"m5.large", "m5.24xlarge", "m5.metal", "t3.nano", "c7g.medium", "g5.48xlarge",
        "p4d.24xlarge", "p5.48xlarge", "trn1.32xlarge", "inf2.48xlarge"}) {
    EXPECT_NE(builtin.find(name), nullptr) << name;
  }
  EXPECT_EQ(builtin.find("m5.huge"), nullptr);
  EXPECT_GE(builtin.size(), 130u);
}

// Every built-in fact equals the reference data, so the compiled table cannot drift.
TEST(CatalogTest, BuiltinAgreesWithTheDataFile) {
  const Catalog& full = fullCatalog();
  ASSERT_EQ(full.size(), 1434u);
  Catalog builtin = builtinCatalog();
  for (const InstanceTypeInfo& b : builtin.all()) {
    SCOPED_TRACE(b.name);
    const InstanceTypeInfo* f = full.find(b.name);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(b.family, f->family);
    EXPECT_EQ(b.architecture, f->architecture);
    EXPECT_EQ(b.vcpu, f->vcpu);
    EXPECT_EQ(b.memoryMiB, f->memoryMiB);
    EXPECT_EQ(b.hypervisor, f->hypervisor);
    EXPECT_EQ(b.bareMetal, f->bareMetal);
    ASSERT_EQ(b.networkCards.size(), f->networkCards.size());
    for (size_t i = 0; i < b.networkCards.size(); ++i) {
      EXPECT_EQ(b.networkCards[i].index, f->networkCards[i].index);
      EXPECT_EQ(b.networkCards[i].maximumNetworkInterfaces,
                f->networkCards[i].maximumNetworkInterfaces);
    }
    EXPECT_EQ(b.defaultNetworkCardIndex, f->defaultNetworkCardIndex);
    EXPECT_EQ(b.maxNetworkInterfaces, f->maxNetworkInterfaces);
    EXPECT_EQ(b.ipv4PerInterface, f->ipv4PerInterface);
    EXPECT_EQ(b.ipv6PerInterface, f->ipv6PerInterface);
    EXPECT_EQ(b.efaSupported, f->efaSupported);
    EXPECT_EQ(b.maximumEfaInterfaces, f->maximumEfaInterfaces);
    EXPECT_EQ(b.gpus.count, f->gpus.count);
    EXPECT_EQ(b.gpus.manufacturer, f->gpus.manufacturer);
    EXPECT_EQ(b.gpus.name, f->gpus.name);
    EXPECT_EQ(b.gpus.memoryMiB, f->gpus.memoryMiB);
    EXPECT_EQ(b.accelerators.count, f->accelerators.count);
    EXPECT_EQ(b.accelerators.name, f->accelerators.name);
    EXPECT_EQ(b.networkBandwidthMbps, f->networkBandwidthMbps);
    EXPECT_EQ(b.encryptionInTransit, f->encryptionInTransit);
    EXPECT_EQ(b.cpuManufacturer, f->cpuManufacturer);
    EXPECT_EQ(b.sustainedClockSpeedMhz, f->sustainedClockSpeedMhz);
    EXPECT_EQ(b.ebsMaximumBandwidthMbps, f->ebsMaximumBandwidthMbps);
    EXPECT_EQ(b.localNvmeGB, f->localNvmeGB);
    if (b.localNvmeDisks) {
      EXPECT_EQ(*b.localNvmeGB % *b.localNvmeDisks, 0);  // equal disks
    }
    EXPECT_EQ(b.onDemandPrice, f->onDemandPrice);
    EXPECT_EQ(b.supportedUsageClasses, f->supportedUsageClasses);
  }
}

TEST(CatalogTest, M5LargeFacts) {
  for (const Catalog& catalog : {builtinCatalog(), fullCatalog()}) {
    const InstanceTypeInfo* t = catalog.find("m5.large");
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->vcpu, 2);
    EXPECT_EQ(t->memoryMiB, 8192);
    EXPECT_EQ(t->architecture, Architecture::X86_64);
    EXPECT_EQ(t->maxNetworkInterfaces, 3);
    ASSERT_EQ(t->networkCards.size(), 1u);
    EXPECT_EQ(t->networkCards[0].maximumNetworkInterfaces, 3);
    EXPECT_EQ(t->ipv4PerInterface, 10);
    EXPECT_FALSE(t->efaSupported);
    EXPECT_EQ(t->maximumEfaInterfaces, 0);
    EXPECT_EQ(t->onDemandPrice, 0.096);
  }
}

TEST(CatalogTest, P4dHasFourCardsAndFourEfas) {
  for (const Catalog& catalog : {builtinCatalog(), fullCatalog()}) {
    const InstanceTypeInfo* t = catalog.find("p4d.24xlarge");
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->networkCards.size(), 4u);
    EXPECT_EQ(t->maxNetworkInterfaces, 60);
    EXPECT_TRUE(t->efaSupported);
    EXPECT_EQ(t->maximumEfaInterfaces, 4);
    EXPECT_EQ(t->gpus.count, 8);
    EXPECT_EQ(t->gpus.name, "a100");
  }
}

TEST(CatalogTest, P5HasThirtyTwoCards) {
  for (const Catalog& catalog : {builtinCatalog(), fullCatalog()}) {
    const InstanceTypeInfo* t = catalog.find("p5.48xlarge");
    ASSERT_NE(t, nullptr);
    ASSERT_EQ(t->networkCards.size(), 32u);
    EXPECT_EQ(t->networkCards[31].index, 31);
    EXPECT_EQ(t->networkCards[31].maximumNetworkInterfaces, 2);
    EXPECT_EQ(t->maxNetworkInterfaces, 64);
    EXPECT_EQ(t->maximumEfaInterfaces, 32);
    EXPECT_EQ(t->gpus.count, 8);
    EXPECT_EQ(t->gpus.manufacturer, "nvidia");
    EXPECT_EQ(t->gpus.memoryMiB, 81920);
    EXPECT_EQ(t->supportedUsageClasses,
              (std::vector<std::string>{"capacity-block", "on-demand", "spot"}));
  }
}

TEST(CatalogTest, LocalStorageEncryptionAndProcessorFacts) {
  for (const Catalog& catalog : {builtinCatalog(), fullCatalog()}) {
    const InstanceTypeInfo* g5 = catalog.find("g5.xlarge");
    ASSERT_NE(g5, nullptr);
    EXPECT_EQ(g5->localNvmeGB, 250);
    EXPECT_EQ(g5->encryptionInTransit, true);
    EXPECT_EQ(g5->cpuManufacturer, "amd");
    EXPECT_EQ(g5->sustainedClockSpeedMhz, 3300);
    EXPECT_EQ(g5->ebsMaximumBandwidthMbps, 3500);
    const InstanceTypeInfo* p4d = catalog.find("p4d.24xlarge");
    EXPECT_EQ(p4d->localNvmeGB, 8000);
    EXPECT_EQ(p4d->encryptionInTransit, true);
    // Known to have no instance storage: a Nitro type Karpenter's docs describe without it.
    const InstanceTypeInfo* m5 = catalog.find("m5.large");
    EXPECT_EQ(m5->localNvmeGB, 0);
    EXPECT_EQ(m5->encryptionInTransit, false);
    EXPECT_EQ(catalog.find("m5.metal")->localNvmeGB, 0);
  }
  EXPECT_EQ(builtinCatalog().find("p4d.24xlarge")->localNvmeDisks, 8);
  EXPECT_EQ(builtinCatalog().find("g5.48xlarge")->localNvmeDisks, 2);
  EXPECT_FALSE(fullCatalog().find("g5.xlarge")->localNvmeDisks);  // the file has totals only
  // Only in the ENI tables: nothing is known of its storage or encryption.
  EXPECT_FALSE(fullCatalog().find("c7i.32xlarge")->localNvmeGB);
  EXPECT_FALSE(fullCatalog().find("c7i.32xlarge")->encryptionInTransit);
}

TEST(CatalogTest, NoLocalStorageIsInferredOnlyFromKarpenterDocsOnNitro) {
  auto catalog = parseCatalog(R"([
      {"name":"a.docs","hypervisor":"nitro","sources":{"karpenter-docs@x:preview":["vcpu"]}},
      {"name":"b.metal","hypervisor":"","bareMetal":true,"sources":{"karpenter-docs@x":[]}},
      {"name":"c.nodocs","hypervisor":"nitro","sources":{"karpenter-vpclimits":["hypervisor"]}},
      {"name":"d.xen","hypervisor":"xen","sources":{"karpenter-docs@x":[]}},
      {"name":"e.nvme","hypervisor":"nitro","localNvmeGB":75}])",
                              "t.json");
  ASSERT_TRUE(catalog) << catalog.error().message();
  EXPECT_EQ(catalog->find("a.docs")->localNvmeGB, 0);
  EXPECT_EQ(catalog->find("b.metal")->localNvmeGB, 0);
  EXPECT_FALSE(catalog->find("c.nodocs")->localNvmeGB);
  EXPECT_FALSE(catalog->find("d.xen")->localNvmeGB);  // Xen instance stores need not be NVMe
  EXPECT_EQ(catalog->find("e.nvme")->localNvmeGB, 75);
}

TEST(CatalogTest, GravitonIsArm64AndTrainiumHasAccelerators) {
  Catalog builtin = builtinCatalog();
  EXPECT_EQ(builtin.find("m7g.large")->architecture, Architecture::Arm64);
  const InstanceTypeInfo* trn = builtin.find("trn1.32xlarge");
  EXPECT_EQ(trn->accelerators.count, 16);
  EXPECT_EQ(trn->accelerators.name, "trainium");
  EXPECT_EQ(trn->gpus.count, 0);
}

TEST(CatalogTest, FullFileKeepsUnknownValuesUnset) {
  // c7i.32xlarge appears only in the ENI tables of the data.
  const InstanceTypeInfo* t = fullCatalog().find("c7i.32xlarge");
  ASSERT_NE(t, nullptr);
  EXPECT_FALSE(t->vcpu);
  EXPECT_FALSE(t->architecture);
  EXPECT_FALSE(t->networkCards.empty());
}

TEST(CatalogTest, ArchitectureNamesAreEc2s) {
  EXPECT_EQ(parseArchitecture("amd64"), Architecture::X86_64);
  EXPECT_EQ(parseArchitecture("x86_64"), Architecture::X86_64);
  EXPECT_EQ(parseArchitecture("arm64"), Architecture::Arm64);
  EXPECT_EQ(parseArchitecture("sparc"), std::nullopt);
  EXPECT_EQ(architectureName(Architecture::X86_64), "x86_64");
  EXPECT_EQ(architectureName(Architecture::Arm64), "arm64");
}

TEST(CatalogTest, ParsesAMinimalRecord) {
  auto catalog = parseCatalog(R"([{"name":"x1.big","architecture":"arm64","vcpu":4,
      "networkCards":[{"index":1,"maximumNetworkInterfaces":2},
                      {"index":0,"maximumNetworkInterfaces":3}]}])",
                              "t.json");
  ASSERT_TRUE(catalog) << catalog.error().message();
  const InstanceTypeInfo* t = catalog->find("x1.big");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->family, "x1");
  EXPECT_EQ(t->vcpu, 4);
  EXPECT_FALSE(t->memoryMiB);
  ASSERT_EQ(t->networkCards.size(), 2u);
  EXPECT_EQ(t->networkCards[0].index, 0);
  EXPECT_EQ(t->maxNetworkInterfaces, 5);  // the sum of the cards when the total is absent
}

struct BadCatalogCase {
  std::string name;
  std::string json;
  std::string message;  // a substring of the error
};

void PrintTo(const BadCatalogCase& c, std::ostream* os) {
  *os << c.name;
}

class CatalogErrorTest : public ::testing::TestWithParam<BadCatalogCase> {};

TEST_P(CatalogErrorTest, NamesWhereTheProblemIs) {
  auto catalog = parseCatalog(GetParam().json, "types.json");
  ASSERT_FALSE(catalog);
  EXPECT_TRUE(catalog.error().is(core::Code::Invalid));
  EXPECT_NE(catalog.error().message().find(GetParam().message), std::string::npos)
      << catalog.error().message();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CatalogErrorTest,
    ::testing::Values(
        BadCatalogCase{"BrokenJson", "[\n{\"name\":\"a.b\"},\n{\"name\": }\n]", "types.json:3:"},
        BadCatalogCase{"NotAnArray", R"({"name":"a.b"})", "types.json: expected a JSON array"},
        BadCatalogCase{"RecordNotObject", R"([{"name":"a.b"}, 7])",
                       "types.json: record 1: expected an object"},
        BadCatalogCase{"MissingName", R"([{"vcpu":2}])",
                       "types.json: record 0: field \"name\": expected a non-empty string"},
        BadCatalogCase{"WrongType", R"([{"name":"a.b"},{"name":"c.d","vcpu":"two"}])",
                       "types.json: record 1 (c.d): field \"vcpu\": expected an integer, got "
                       "string"},
        BadCatalogCase{"BadCard", R"([{"name":"a.b","networkCards":[{"index":0}]}])",
                       "record 0 (a.b): field \"networkCards[0]\""},
        BadCatalogCase{"UnknownArchitecture", R"([{"name":"a.b","architecture":"sparc"}])",
                       "field \"architecture\": unknown architecture \"sparc\""},
        BadCatalogCase{"BadUsageClasses", R"([{"name":"a.b","supportedUsageClasses":[1]}])",
                       "field \"supportedUsageClasses\": expected an array of strings"},
        BadCatalogCase{"Duplicate", R"([{"name":"a.b"},{"name":"a.b"}])",
                       "record 1: duplicate instance type \"a.b\""}),
    [](const auto& info) { return info.param.name; });

TEST(CatalogTest, MissingFileIsNotFound) {
  auto catalog = loadCatalog("/nonexistent/types.json");
  ASSERT_FALSE(catalog);
  EXPECT_TRUE(catalog.error().is(core::Code::NotFound));
  EXPECT_NE(catalog.error().message().find("/nonexistent/types.json"), std::string::npos);
}

}  // namespace
}  // namespace nodewright::emulators::ec2
