#include "aws/query.h"

#include <gtest/gtest.h>

namespace nodewright::aws {
namespace {

Params parsed(std::string_view form) {
  auto params = Params::parse(form);
  EXPECT_TRUE(params) << params.error().message;
  return params ? *params : Params();
}

TEST(UriEncodeTest, KeepsOnlyTheUnreservedSet) {
  EXPECT_EQ(uriEncode("AZaz09-_.~"), "AZaz09-_.~");
  EXPECT_EQ(uriEncode("a b+c/d=e&f*"), "a%20b%2Bc%2Fd%3De%26f%2A");
  EXPECT_EQ(uriEncode("/a b/", true), "/a%20b/");
  EXPECT_EQ(uriEncode("\xe1\x88\xb4"), "%E1%88%B4");
  EXPECT_EQ(uriEncode(std::string("\0", 1)), "%00");
}

TEST(UriDecodeTest, DecodesEscapesAndOptionallyPlus) {
  EXPECT_EQ(uriDecode("a%20b+c%2b%E1%88%b4", true), "a b c+\xe1\x88\xb4");
  EXPECT_EQ(uriDecode("a+b", false), "a+b");
}

TEST(UriDecodeTest, RejectsBrokenEscapes) {
  for (std::string_view broken : {"%", "%2", "a%zz", "%%", "abc%4"}) {
    EXPECT_FALSE(uriDecode(broken, true)) << broken;
  }
}

TEST(ParseFormTest, DecodesPairsInOrder) {
  auto pairs = parseForm("Action=RunInstances&TagSpecification.1.Tag.1.Value=a+b%26c&Flag&=x&&");
  ASSERT_TRUE(pairs);
  ParamPairs expected = {{"Action", "RunInstances"},
                         {"TagSpecification.1.Tag.1.Value", "a b&c"},
                         {"Flag", ""},
                         {"", "x"}};
  EXPECT_EQ(*pairs, expected);
}

TEST(ParseFormTest, BrokenEscapeIsMalformedQueryString) {
  auto pairs = parseForm("Action=Run&UserData=abc%G1");
  ASSERT_FALSE(pairs);
  EXPECT_EQ(pairs.error().code, "MalformedQueryString");
  EXPECT_EQ(pairs.error().httpStatus, 400);
}

TEST(EncodeFormTest, RoundTripsThroughParse) {
  ParamPairs pairs = {{"Action", "RunInstances"}, {"UserData", "#!/bin/sh\necho a+b=c & d ~"}};
  std::string body = encodeForm(pairs);
  EXPECT_EQ(body.find(' '), std::string::npos);
  EXPECT_EQ(body.find('+'), std::string::npos) << "a space is %20, so '+' never appears";
  EXPECT_EQ(parseForm(body), pairs);
}

TEST(ParamsTest, ReadsScalars) {
  Params params = parsed("Action=RunInstances&MinCount=2&DryRun=TRUE&Ebs=false");
  EXPECT_EQ(params.str("Action"), "RunInstances");
  EXPECT_EQ(params.integer("MinCount"), 2);
  EXPECT_EQ(params.optInteger("MaxCount").value(), std::nullopt);
  EXPECT_EQ(params.optBoolean("DryRun").value(), true);
  EXPECT_EQ(params.optBoolean("Ebs").value(), false);
  EXPECT_EQ(params.strOr("ClientToken", "none"), "none");
  EXPECT_TRUE(params.has("Action"));
  EXPECT_FALSE(params.has("Act"));
}

TEST(ParamsTest, MissingParameterNamesTheFullPath) {
  Params params = parsed("LaunchTemplateData.NetworkInterface.1.SubnetId=subnet-1");
  auto nics = params.sub("LaunchTemplateData").list("NetworkInterface");
  ASSERT_TRUE(nics);
  ASSERT_EQ(nics->size(), 1u);
  auto index = (*nics)[0].integer("DeviceIndex");
  ASSERT_FALSE(index);
  EXPECT_EQ(index.error().code, "MissingParameter");
  EXPECT_EQ(
      index.error().message,
      "The request must contain the parameter LaunchTemplateData.NetworkInterface.1.DeviceIndex");
}

TEST(ParamsTest, InvalidValueNamesTheFullPath) {
  Params params = parsed("LaunchTemplateData.NetworkInterface.1.DeviceIndex=x");
  auto nics = params.sub("LaunchTemplateData").list("NetworkInterface");
  ASSERT_TRUE(nics);
  auto index = nics->at(0).integer("DeviceIndex");
  ASSERT_FALSE(index);
  EXPECT_EQ(index.error().code, "InvalidParameterValue");
  EXPECT_EQ(index.error().message,
            "Invalid value 'x' for LaunchTemplateData.NetworkInterface.1.DeviceIndex");
}

TEST(ParamsTest, IntegersAreStrict) {
  for (std::string_view bad : {"", "1.5", " 1", "1 ", "+1", "0x10", "99999999999999999999"}) {
    Params params = parsed("MinCount=" + uriEncode(bad));
    EXPECT_FALSE(params.integer("MinCount")) << "'" << bad << "'";
  }
  EXPECT_EQ(parsed("Offset=-3").integer("Offset"), -3);
  EXPECT_FALSE(parsed("DryRun=yes").optBoolean("DryRun"));
}

TEST(ParamsTest, ListsFollowIndicesNotWireOrder) {
  Params params = parsed(
      "Filter.2.Name=instance-type&Filter.2.Value.1=m5.large&Filter.10.Name=tag:team"
      "&Filter.10.Value.1=a&Filter.1.Name=vpc-id&Filter.1.Value.3=vpc-3&Filter.1.Value.1=vpc-1");
  auto filters = params.list("Filter");
  ASSERT_TRUE(filters);
  ASSERT_EQ(filters->size(), 3u);
  EXPECT_EQ((*filters)[0].str("Name"), "vpc-id");
  EXPECT_EQ((*filters)[1].str("Name"), "instance-type");
  EXPECT_EQ((*filters)[2].str("Name"), "tag:team");
  EXPECT_EQ((*filters)[2].prefix(), "Filter.10.");
  // Gaps are allowed: Value.1 and Value.3.
  EXPECT_EQ((*filters)[0].strings("Value"), (std::vector<std::string>{"vpc-1", "vpc-3"}));
}

TEST(ParamsTest, ReadsNestedLists) {
  Params params = parsed(
      "TagSpecification.1.ResourceType=instance&TagSpecification.1.Tag.2.Key=b"
      "&TagSpecification.1.Tag.2.Value=2&TagSpecification.1.Tag.1.Key=a"
      "&TagSpecification.1.Tag.1.Value=1");
  auto specs = params.list("TagSpecification");
  ASSERT_TRUE(specs);
  ASSERT_EQ(specs->size(), 1u);
  auto tags = (*specs)[0].list("Tag");
  ASSERT_TRUE(tags);
  ASSERT_EQ(tags->size(), 2u);
  EXPECT_EQ((*tags)[0].str("Key"), "a");
  EXPECT_EQ((*tags)[1].str("Value"), "2");
  EXPECT_EQ((*tags)[1].path("Key"), "TagSpecification.1.Tag.2.Key");
}

TEST(ParamsTest, ScalarListsIgnoreDeeperNames) {
  Params params = parsed("InstanceId.2=i-2&InstanceId.1=i-1&InstanceId.3.Foo=x&InstanceIds.1=no");
  EXPECT_EQ(params.strings("InstanceId"), (std::vector<std::string>{"i-1", "i-2"}));
}

TEST(ParamsTest, AbsentListIsEmpty) {
  Params params = parsed("Action=DescribeInstances");
  EXPECT_EQ(params.list("Filter")->size(), 0u);
  EXPECT_EQ(params.strings("InstanceId")->size(), 0u);
}

TEST(ParamsTest, HugeIndicesAreMembersWhileOverflowIsAnError) {
  EXPECT_EQ(parsed("InstanceId.18446744073709551615=i-big&InstanceId.7=i-7").strings("InstanceId"),
            (std::vector<std::string>{"i-7", "i-big"}));
  auto overflow = parsed("InstanceId.18446744073709551616=i-x").strings("InstanceId");
  ASSERT_FALSE(overflow);
  EXPECT_EQ(overflow.error().code, "InvalidParameterValue");
}

TEST(ParamsTest, BadIndicesAreErrors) {
  for (std::string_view form : {"InstanceId.0=i", "InstanceId.01=i", "InstanceId.x=i",
                                "InstanceId.-1=i", "InstanceId.=i", "Filter.1a.Name=n"}) {
    Params params = parsed(form);
    auto name = std::string(form.substr(0, form.find('.')));
    auto list = params.list(name);
    ASSERT_FALSE(list) << form;
    EXPECT_EQ(list.error().code, "InvalidParameterValue") << form;
    EXPECT_NE(list.error().message.find(std::string(form.substr(0, form.find('=')))),
              std::string::npos)
        << list.error().message;
  }
}

TEST(ParamsTest, DuplicateNamesAreRejected) {
  auto params = Params::parse("InstanceId.1=i-1&InstanceId.1=i-2");
  ASSERT_FALSE(params);
  EXPECT_EQ(params.error().code, "InvalidParameter");
  EXPECT_NE(params.error().message.find("InstanceId.1"), std::string::npos);
}

TEST(ParamsTest, ViewsOutliveTheRoot) {
  std::vector<Params> filters;
  {
    Params root = parsed("Filter.1.Name=a");
    filters = *root.list("Filter");
  }
  EXPECT_EQ(filters[0].str("Name"), "a");
}

TEST(ParamsTest, NamesListsAViewsParameters) {
  Params params = parsed("Action=X&Filter.1.Name=a&Filter.1.Value.1=b&Filter.2.Name=c");
  auto filters = *params.list("Filter");
  EXPECT_EQ(filters[0].names(),
            (std::vector<std::string_view>{"Filter.1.Name", "Filter.1.Value.1"}));
  EXPECT_EQ(params.names().size(), 4u);
}

}  // namespace
}  // namespace nodewright::aws
