// DescribeImages, in process.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "aws/xml.h"
#include "emulators/ec2/action.h"
#include "emulators/ec2/describe_fixture.h"
#include "emulators/ec2/render.h"
#include "emulators/ec2/spot_prices.h"
#include "emulators/ec2/world.h"

namespace nodewright::emulators::ec2 {
namespace {

using testing::allPages;
using testing::DescribeActionsTest;
using testing::DescribeWorld;
using testing::expectError;
using testing::worldWithSubnets;
using testing::Xml;

// ---- DescribeImages

TEST_F(DescribeActionsTest, ImagesAreSelectedByOwner) {
  auto self = allPages(w_, "DescribeImages", "Owner.1=self", "imagesSet", "name");
  EXPECT_EQ(
      std::set<std::string>(self.begin(), self.end()),
      (std::set<std::string>{"nodewright-custom-al2023-x86_64", "nodewright-custom-al2023-arm64"}));
  auto amazon = allPages(w_, "DescribeImages", "Owner.1=amazon", "imagesSet", "imageOwnerAlias");
  EXPECT_GT(amazon.size(), 50u);
  EXPECT_TRUE(std::all_of(amazon.begin(), amazon.end(),
                          [](const std::string& a) { return a == "amazon"; }));
  auto all = allPages(w_, "DescribeImages", "", "imagesSet", "imageId");
  EXPECT_EQ(all.size(), amazon.size() + self.size());
  auto byAccount =
      allPages(w_, "DescribeImages", "Owner.1=092701018921&Owner.2=self", "imagesSet", "name");
  EXPECT_EQ(byAccount.size(), defaultWorld().kubernetesVersions.size() * 4 + 2u)
      << "Bottlerocket's four per version, and our two";
  expectError(w_.call("DescribeImages", "Owner.1=somebody"), "InvalidUserID.Malformed");
}

// EKS's Windows Server Core images, as EC2 describes Amazon's Windows AMIs, behind the SSM names
// Karpenter's windows2019/2022/2025 aliases read.
TEST_F(DescribeActionsTest, WindowsImagesCarryTheirPlatformBehindKarpentersParameters) {
  for (const auto& [year, version] : std::vector<std::pair<std::string, std::string>>{
           {"2019", "1.32"}, {"2022", "1.32"}, {"2025", "1.35"}}) {
    SCOPED_TRACE(year);
    const std::string base =
        fmt::format("Windows_Server-{}-English-Core-EKS_Optimized-{}", year, version);
    auto parameter =
        w_.world().ssmParameters.find("/aws/service/ami-windows-latest/" + base + "/image_id");
    ASSERT_NE(parameter, w_.world().ssmParameters.end());
    auto body = w_.call("DescribeImages", "ImageId.1=" + parameter->second);
    ASSERT_TRUE(body);
    Xml xml(*body);
    ASSERT_EQ(xml.items("imagesSet").size(), 1u);
    auto image = xml.items("imagesSet")[0];
    EXPECT_EQ(std::string(image.child_value("name")), base + "-2024.11.15");
    EXPECT_STREQ(image.child_value("platform"), "windows");
    EXPECT_STREQ(image.child_value("platformDetails"), "Windows");
    EXPECT_STREQ(image.child_value("usageOperation"), "RunInstances:0002");
    EXPECT_STREQ(image.child_value("architecture"), "x86_64");
    EXPECT_STREQ(image.child_value("rootDeviceName"), "/dev/sda1");
    EXPECT_STREQ(image.child_value("imageOwnerAlias"), "amazon");
    EXPECT_STREQ(image.child_value("imageOwnerId"), "801119661308");
    EXPECT_STREQ(image.child_value("creationDate"), "2024-11-15T00:00:00.000Z");
  }
  // Windows Server 2025 images start with 1.35, where Karpenter starts to accept the alias.
  EXPECT_FALSE(w_.world().ssmParameters.contains(
      "/aws/service/ami-windows-latest/Windows_Server-2025-English-Core-EKS_Optimized-1.34/"
      "image_id"));
  // Linux images have no platform; the platform filter selects Windows ones.
  auto windows = allPages(w_, "DescribeImages", "Filter.1.Name=platform&Filter.1.Value.1=windows",
                          "imagesSet", "platformDetails");
  EXPECT_EQ(windows.size(), defaultWorld().kubernetesVersions.size() * 2 + 1);
  EXPECT_TRUE(std::all_of(windows.begin(), windows.end(),
                          [](const std::string& p) { return p == "Windows"; }));
  auto al2023 =
      w_.call("DescribeImages",
              "Filter.1.Name=name&Filter.1.Value.1=amazon-eks-node-al2023-x86_64-standard-1.31-*");
  ASSERT_TRUE(al2023);
  Xml linux(*al2023);
  ASSERT_EQ(linux.items("imagesSet").size(), 1u);
  EXPECT_FALSE(linux.items("imagesSet")[0].child("platform"));
  EXPECT_STREQ(linux.items("imagesSet")[0].child_value("usageOperation"), "RunInstances");
}

TEST_F(DescribeActionsTest, ImagesAreFilteredByNameArchitectureAndTags) {
  auto body = w_.call("DescribeImages",
                      "Owner.1=amazon&Filter.1.Name=name"
                      "&Filter.1.Value.1=amazon-eks-node-al2023-x86_64-standard-1.31-*");
  ASSERT_TRUE(body);
  Xml xml(*body);
  ASSERT_EQ(xml.items("imagesSet").size(), 1u);
  auto image = xml.items("imagesSet")[0];
  EXPECT_STREQ(image.child_value("architecture"), "x86_64");
  EXPECT_STREQ(image.child_value("imageState"), "available");
  EXPECT_STREQ(image.child_value("imageOwnerId"), "602401143452");
  EXPECT_STREQ(image.child_value("isPublic"), "true");
  EXPECT_STREQ(image.child_value("imageType"), "machine");
  EXPECT_STREQ(image.child_value("rootDeviceType"), "ebs");
  EXPECT_STREQ(image.child_value("virtualizationType"), "hvm");
  EXPECT_STREQ(image.child_value("creationDate"), "2024-11-15T00:00:00.000Z");
  EXPECT_STREQ(image.child_value("bootMode"), "uefi-preferred");
  const std::string id = image.child_value("imageId");

  // The SSM parameter of the alias names the same image.
  EXPECT_EQ(w_.world().ssmParameters.at(
                "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/"
                "recommended/image_id"),
            id);
  auto byId = allPages(w_, "DescribeImages", "ImageId.1=" + id, "imagesSet", "imageId");
  EXPECT_EQ(byId, std::vector<std::string>{id});

  auto arm = allPages(w_, "DescribeImages",
                      "Filter.1.Name=architecture&Filter.1.Value.1=arm64"
                      "&Filter.2.Name=tag:karpenter.sh/discovery&Filter.2.Value.1=nodewright",
                      "imagesSet", "name");
  EXPECT_EQ(arm, std::vector<std::string>{"nodewright-custom-al2023-arm64"});
  // Images whose boot mode parameter is not known have none, as on EC2.
  auto custom = w_.call("DescribeImages", "Owner.1=self");
  ASSERT_TRUE(custom);
  const Xml customDoc(*custom);
  for (auto item : customDoc.items("imagesSet")) {
    EXPECT_FALSE(item.child("bootMode")) << item.child_value("name");
  }
  auto tagKey = allPages(w_, "DescribeImages", "Filter.1.Name=tag-key&Filter.1.Value.1=Name",
                         "imagesSet", "name");
  EXPECT_EQ(tagKey.size(), 2u);
}

TEST_F(DescribeActionsTest, BadImageIdsAreMalformedOrNotFound) {
  expectError(w_.call("DescribeImages", "ImageId.1=ami-12"), "InvalidAMIID.Malformed", "ami-12");
  expectError(w_.call("DescribeImages", "ImageId.1=image-0123456789abcdef0"),
              "InvalidAMIID.Malformed");
  expectError(w_.call("DescribeImages", "ImageId.1=ami-0123456789abcdef0"), "InvalidAMIID.NotFound",
              "'[ami-0123456789abcdef0]'");
}

TEST(DescribeDeprecatedImagesTest, DeprecatedImagesNeedIncludeDeprecated) {
  WorldConfig config = defaultWorld();
  ImageConfig old;
  old.id = "ami-0aaaaaaaaaaaaaaa1";
  old.name = "old-public-image";
  old.ownerId = "111122223333";
  old.ownerAlias = "amazon";
  old.deprecationTime = "2020-01-01T00:00:00.000Z";
  config.images.push_back(old);
  DescribeWorld w(config);
  const std::string query = "Filter.1.Name=name&Filter.1.Value.1=old-*";
  EXPECT_TRUE(allPages(w, "DescribeImages", query, "imagesSet", "imageId").empty());
  auto body = w.call("DescribeImages", query + "&IncludeDeprecated=true");
  ASSERT_TRUE(body);
  const Xml doc(*body);
  auto items = doc.items("imagesSet");
  ASSERT_EQ(items.size(), 1u);
  EXPECT_STREQ(items[0].child_value("deprecationTime"), "2020-01-01T00:00:00.000Z");
}

TEST(DescribeStoredPagesTest, ImagePagesReturnEveryImageOnce) {
  DescribeWorld w;
  auto all = allPages(w, "DescribeImages", "", "imagesSet", "imageId");
  auto paged = allPages(w, "DescribeImages", "MaxResults=6", "imagesSet", "imageId");
  EXPECT_EQ(paged, all);
  EXPECT_EQ(std::set<std::string>(paged.begin(), paged.end()).size(), paged.size());
}

}  // namespace
}  // namespace nodewright::emulators::ec2
