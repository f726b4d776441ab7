// Karpenter's --feature-gates: upstream's defaults, Name=bool pairs over them, unknown names
// ignored and malformed pairs refused, naming the flag.
#include "cmd/feature_gates.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include <CLI/CLI.hpp>

namespace nodewright::cmd {
namespace {

TEST(FeatureGatesTest, UpstreamDefaultsLeaveRepairAndSpotToSpotOff) {
  auto gates = parseFeatureGates(kDefaultFeatureGates);
  ASSERT_TRUE(gates) << gates.error().message();
  EXPECT_FALSE(gates->nodeRepair);
  EXPECT_FALSE(gates->spotToSpotConsolidation);
  EXPECT_TRUE(gates->reservedCapacity);
  EXPECT_FALSE(gates->staticCapacity);
}

TEST(FeatureGatesTest, PairsOverrideTheDefaultsWithGoBooleans) {
  auto gates =
      parseFeatureGates(" NodeRepair = T ,SpotToSpotConsolidation=1,,ReservedCapacity=False");
  ASSERT_TRUE(gates) << gates.error().message();
  EXPECT_TRUE(gates->nodeRepair);
  EXPECT_TRUE(gates->spotToSpotConsolidation);
  EXPECT_FALSE(gates->reservedCapacity);
  EXPECT_FALSE(gates->nodeOverlay);
}

TEST(FeatureGatesTest, EmptyAndUnknownNamesChangeNothing) {
  for (const char* text : {"", "  ", "SomethingNew=true", "nodeRepair=true"}) {
    auto gates = parseFeatureGates(text);
    ASSERT_TRUE(gates) << text << ": " << gates.error().message();
    EXPECT_FALSE(gates->nodeRepair) << text;
    EXPECT_TRUE(gates->reservedCapacity) << text;
  }
}

TEST(FeatureGatesTest, MalformedPairsAndValuesAreRefusedNamingTheFlag) {
  auto noEquals = parseFeatureGates("NodeRepair");
  ASSERT_FALSE(noEquals);
  EXPECT_EQ(noEquals.error().message(),
            "--feature-gates: malformed pair \"NodeRepair\", expect Name=bool");
  auto notBool = parseFeatureGates("NodeRepair=true,SpotToSpotConsolidation=yes");
  ASSERT_FALSE(notBool);
  EXPECT_EQ(notBool.error().message(),
            "--feature-gates: invalid value of SpotToSpotConsolidation: \"yes\" is not a boolean");
}

TEST(FeatureGatesTest, TheFlagDefaultsToUpstreamsStringAndReadsFeatureGatesFromTheEnvironment) {
  {
    CLI::App app;
    std::string text = kDefaultFeatureGates;
    addFeatureGatesFlag(app, text);
    const char* argv[] = {"nodewright", "--feature-gates", "NodeRepair=true"};
    app.parse(3, argv);
    auto gates = parseFeatureGates(text);
    ASSERT_TRUE(gates);
    EXPECT_TRUE(gates->nodeRepair);
  }
  ::setenv("FEATURE_GATES", "SpotToSpotConsolidation=true", 1);
  CLI::App app;
  std::string text = kDefaultFeatureGates;
  addFeatureGatesFlag(app, text);
  const char* argv[] = {"nodewright"};
  app.parse(1, argv);
  ::unsetenv("FEATURE_GATES");
  auto gates = parseFeatureGates(text);
  ASSERT_TRUE(gates);
  EXPECT_TRUE(gates->spotToSpotConsolidation);
  EXPECT_FALSE(gates->nodeRepair);
}

}  // namespace
}  // namespace nodewright::cmd
