#include "aws/endpoints.h"

#include <gtest/gtest.h>

namespace nodewright::aws {
namespace {

Profile profileWith(std::map<std::string, std::string> values) {
  Profile p;
  p.name = "dev";
  p.values = std::move(values);
  p.found = true;
  return p;
}

TEST(ResolveRegionTest, FollowsTheSdkOrder) {
  std::map<std::string, std::string> vars = {{"AWS_REGION", "us-west-2"},
                                             {"AWS_DEFAULT_REGION", "eu-west-1"}};
  Profile profile = profileWith({{"region", "ap-south-1"}});
  int imdsCalls = 0;
  RegionLookup imds = [&]() -> ApiResult<std::string> {
    ++imdsCalls;
    return std::string("sa-east-1");
  };

  EXPECT_EQ(resolveRegion("ca-central-1", mapEnvironment(vars), &profile, imds), "ca-central-1");
  EXPECT_EQ(resolveRegion(std::nullopt, mapEnvironment(vars), &profile, imds), "us-west-2");
  vars.erase("AWS_REGION");
  EXPECT_EQ(resolveRegion(std::nullopt, mapEnvironment(vars), &profile, imds), "eu-west-1");
  vars.erase("AWS_DEFAULT_REGION");
  EXPECT_EQ(resolveRegion(std::nullopt, mapEnvironment(vars), &profile, imds), "ap-south-1");
  EXPECT_EQ(imdsCalls, 0);
  EXPECT_EQ(resolveRegion(std::nullopt, mapEnvironment(vars), nullptr, imds), "sa-east-1");
  EXPECT_EQ(imdsCalls, 1);
}

TEST(ResolveRegionTest, ErrorNamesEverySource) {
  auto none = resolveRegion(std::nullopt, mapEnvironment({}), nullptr,
                            [] { return apiFail(kCredentialsNotFound, "not on EC2", 0); });
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, "NoRegion");
  EXPECT_EQ(none.error().message,
            "no AWS region set; looked at the --region flag, AWS_REGION, AWS_DEFAULT_REGION, "
            "region in profile \"default\", instance metadata (not on EC2)");

  auto withoutImds = resolveRegion(std::nullopt, mapEnvironment({}), nullptr);
  ASSERT_FALSE(withoutImds);
  EXPECT_EQ(withoutImds.error().message.find("instance metadata"), std::string::npos);
}

TEST(ResolveRegionTest, RejectsRegionsThatCannotBeHostNames) {
  auto bad = resolveRegion(std::nullopt, mapEnvironment({{"AWS_REGION", "evil.com/x"}}), nullptr);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, "InvalidRegion");
  EXPECT_NE(bad.error().message.find("AWS_REGION"), std::string::npos);
}

TEST(ResolveEndpointTest, FollowsTheSdkOrder) {
  std::map<std::string, std::string> vars = {{"AWS_ENDPOINT_URL_EC2", "http://127.0.0.1:1001"},
                                             {"AWS_ENDPOINT_URL", "http://127.0.0.1:1002"}};
  Profile profile = profileWith({{"endpoint_url", "http://127.0.0.1:1003"}});
  auto resolve = [&](std::optional<std::string> flag) {
    return resolveEndpoint("ec2", "us-west-2", flag, mapEnvironment(vars), &profile);
  };
  EXPECT_EQ(resolve("https://127.0.0.1:1000/"), "https://127.0.0.1:1000");
  EXPECT_EQ(resolve(std::nullopt), "http://127.0.0.1:1001");
  vars.erase("AWS_ENDPOINT_URL_EC2");
  EXPECT_EQ(resolve(std::nullopt), "http://127.0.0.1:1002");
  vars.erase("AWS_ENDPOINT_URL");
  EXPECT_EQ(resolve(std::nullopt), "http://127.0.0.1:1003");
  profile.values.clear();
  EXPECT_EQ(resolve(std::nullopt), "https://ec2.us-west-2.amazonaws.com");
}

TEST(ResolveEndpointTest, ServiceSpecificVariableIsOnlyForItsService) {
  auto env = mapEnvironment({{"AWS_ENDPOINT_URL_EC2", "http://127.0.0.1:1001"}});
  EXPECT_EQ(resolveEndpoint("ssm", "us-east-1", std::nullopt, env, nullptr),
            "https://ssm.us-east-1.amazonaws.com");
  EXPECT_EQ(endpointEnvName("ec2"), "AWS_ENDPOINT_URL_EC2");
  EXPECT_EQ(endpointEnvName("elastic load-balancing"), "AWS_ENDPOINT_URL_ELASTIC_LOAD_BALANCING");
}

TEST(ResolveEndpointTest, DefaultsPerService) {
  auto env = mapEnvironment({});
  EXPECT_EQ(resolveEndpoint("sts", "eu-west-1", std::nullopt, env, nullptr),
            "https://sts.eu-west-1.amazonaws.com");
  EXPECT_EQ(resolveEndpoint("pricing", "eu-west-1", std::nullopt, env, nullptr),
            "https://api.pricing.us-east-1.amazonaws.com");
  EXPECT_EQ(resolveEndpoint("ec2", "cn-north-1", std::nullopt, env, nullptr),
            "https://ec2.cn-north-1.amazonaws.com.cn");
  EXPECT_FALSE(resolveEndpoint("ec2", "", std::nullopt, env, nullptr));
}

TEST(ResolveEndpointTest, IgnoreConfiguredEndpointsSkipsEnvironmentAndProfileButNotTheFlag) {
  auto env = mapEnvironment({{"AWS_ENDPOINT_URL", "http://127.0.0.1:1002"},
                             {"AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "true"}});
  Profile profile = profileWith({{"endpoint_url", "http://127.0.0.1:1003"}});
  EXPECT_EQ(resolveEndpoint("ec2", "us-east-1", std::nullopt, env, &profile),
            "https://ec2.us-east-1.amazonaws.com");
  EXPECT_EQ(resolveEndpoint("ec2", "us-east-1", "http://127.0.0.1:9", env, &profile),
            "http://127.0.0.1:9");
}

TEST(ResolveEndpointTest, InvalidOverrideNamesItsSource) {
  auto env = mapEnvironment({{"AWS_ENDPOINT_URL_EC2", "localhost:4566"}});
  auto got = resolveEndpoint("ec2", "us-east-1", std::nullopt, env, nullptr);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code, "InvalidEndpoint");
  EXPECT_EQ(got.error().message,
            "endpoint from AWS_ENDPOINT_URL_EC2 (\"localhost:4566\") is not an absolute URL: it "
            "needs http:// or https://");
}

struct UrlCase {
  std::string name;
  std::string url;
  std::string expected;  // "" means invalid
};

class ValidateEndpointUrlTest : public ::testing::TestWithParam<UrlCase> {};

TEST_P(ValidateEndpointUrlTest, Validates) {
  auto got = validateEndpointUrl(GetParam().url, "test");
  if (GetParam().expected.empty()) {
    ASSERT_FALSE(got) << *got;
    EXPECT_EQ(got.error().code, "InvalidEndpoint");
  } else {
    ASSERT_TRUE(got) << got.error().message;
    EXPECT_EQ(*got, GetParam().expected);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Urls, ValidateEndpointUrlTest,
    ::testing::Values(
        UrlCase{"Https", "https://ec2.us-east-1.amazonaws.com",
                "https://ec2.us-east-1.amazonaws.com"},
        UrlCase{"HttpWithPortAndSlash", "http://127.0.0.1:4566/", "http://127.0.0.1:4566"},
        UrlCase{"WithPath", "http://localhost:4566/ec2/", "http://localhost:4566/ec2"},
        UrlCase{"Ipv6", "http://[::1]:8080", "http://[::1]:8080"},
        UrlCase{"NoScheme", "127.0.0.1:4566", ""}, UrlCase{"Ftp", "ftp://example.com", ""},
        UrlCase{"NoHost", "https://", ""}, UrlCase{"NoHostWithPort", "http://:80", ""},
        UrlCase{"BadPort", "http://localhost:99999", ""},
        UrlCase{"EmptyPort", "http://localhost:", ""},
        UrlCase{"Query", "http://localhost/?a=b", ""}, UrlCase{"Space", "http://local host", ""},
        UrlCase{"UserInfo", "http://user:pass@localhost", ""}),
    [](const auto& info) { return info.param.name; });

TEST(ValidateEndpointUrlTest, UserInfoIsNotEchoed) {
  auto got = validateEndpointUrl("http://admin:hunter2@localhost", "AWS_ENDPOINT_URL");
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().message.find("hunter2"), std::string::npos) << got.error().message;
}

}  // namespace
}  // namespace nodewright::aws
