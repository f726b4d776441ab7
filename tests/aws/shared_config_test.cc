#include "aws/shared_config.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "aws/transport.h"

namespace nodewright::aws {
namespace {

constexpr const char* kSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

class NoTransport final : public Transport {
 public:
  ApiResult<HttpResponse> send(const HttpRequest&, std::chrono::milliseconds) override {
    ADD_FAILURE() << "no request expected";
    return apiFail(kTransportError, "unexpected", 0);
  }
};

class SharedConfigTest : public ::testing::Test {
 protected:
  SharedConfigTest() {
    std::string pattern = (std::filesystem::temp_directory_path() / "nw-shared-XXXXXX").string();
    dir_ = mkdtemp(pattern.data());
    vars_["AWS_CONFIG_FILE"] = dir_ + "/config";
    vars_["AWS_SHARED_CREDENTIALS_FILE"] = dir_ + "/credentials";
  }
  ~SharedConfigTest() override { std::filesystem::remove_all(dir_); }

  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ + "/" + name) << text;
  }
  ApiResult<sigv4::Credentials> credentials() {
    SharedFileCredentials provider(mapEnvironment(vars_), transport_, clock_, "us-east-1");
    return provider.get();
  }

  std::string dir_;
  std::map<std::string, std::string> vars_;
  NoTransport transport_;
  core::FakeClock clock_;
};

TEST_F(SharedConfigTest, ParsesSectionsCommentsAndWhitespace) {
  auto ini = parseIni(
      "# leading comment\n"
      "; another\n"
      "\n"
      "  [ default ]  # trailing\n"
      "region=us-west-2\n"
      "\toutput   =   json   ; inline\n"
      "s3 =\n"
      "  max_concurrent_requests = 10\n"
      "after = nested\r\n"
      "[profile dev]\n"
      "key = a#b\n",
      "config");
  ASSERT_TRUE(ini) << ini.error().message;
  EXPECT_EQ((*ini)["default"]["region"], "us-west-2");
  EXPECT_EQ((*ini)["default"]["output"], "json");
  EXPECT_EQ((*ini)["default"]["s3"], "");
  EXPECT_EQ((*ini)["default"].count("max_concurrent_requests"), 0u);
  EXPECT_EQ((*ini)["default"]["after"], "nested");
  EXPECT_EQ((*ini)["profile dev"]["key"], "a#b");  // no whitespace before '#': part of the value
}

TEST_F(SharedConfigTest, MalformedLinesNameFileAndLineButNotTheText) {
  struct Case {
    std::string text;
    std::string expected;
  };
  for (const Case& c : std::vector<Case>{
           {"[default]\naws_secret_access_key " + std::string(kSecret) + "\n",
            "credentials:2: expected '[section]' or 'key = value'"},
           {"aws_access_key_id = x\n", "credentials:1: key before any section"},
           {"[default\n", "credentials:1: section header without ']'"},
           {"[]\n", "credentials:1: empty section name"},
           {"[a]\n\n\n = " + std::string(kSecret) + "\n", "credentials:4: empty key"},
       }) {
    auto ini = parseIni(c.text, "credentials");
    ASSERT_FALSE(ini) << c.text;
    EXPECT_EQ(ini.error().code, "InvalidConfigFile");
    EXPECT_EQ(ini.error().message, c.expected);
    EXPECT_EQ(ini.error().message.find(kSecret), std::string::npos);
  }
}

TEST_F(SharedConfigTest, ReadsDefaultProfileFromCredentialsFile) {
  write("credentials", "[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = " +
                           std::string(kSecret) +
                           "\n[dev]\naws_access_key_id = AKIDDEV\n"
                           "aws_secret_access_key = devsecret\naws_session_token = devtoken\n");
  auto got = credentials();
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(got->accessKeyId, "AKIDDEFAULT");
  EXPECT_EQ(got->secretAccessKey, kSecret);
  EXPECT_EQ(got->sessionToken, "");

  vars_["AWS_PROFILE"] = "dev";
  got = credentials();
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(got->accessKeyId, "AKIDDEV");
  EXPECT_EQ(got->sessionToken, "devtoken");
}

TEST_F(SharedConfigTest, ConfigFileUsesProfilePrefixAndCredentialsFileWins) {
  write("config",
        "[default]\nregion = eu-west-1\n"
        "[dev]\naws_access_key_id = AKIDNOTAPROFILE\naws_secret_access_key = x\n"
        "[profile dev]\nregion = ap-south-1\naws_access_key_id = AKIDCONFIG\n"
        "aws_secret_access_key = configsecret\nendpoint_url = http://127.0.0.1:4566\n");
  vars_["AWS_PROFILE"] = "dev";
  auto profile = loadProfile(mapEnvironment(vars_));
  ASSERT_TRUE(profile) << profile.error().message;
  EXPECT_TRUE(profile->found);
  EXPECT_EQ(profile->get("region"), "ap-south-1");
  EXPECT_EQ(profile->get("endpoint_url"), "http://127.0.0.1:4566");
  EXPECT_EQ(credentials()->accessKeyId, "AKIDCONFIG");

  write("credentials", "[dev]\naws_access_key_id = AKIDCREDS\naws_secret_access_key = s\n");
  EXPECT_EQ(credentials()->accessKeyId, "AKIDCREDS");
  EXPECT_EQ(loadProfile(mapEnvironment(vars_))->get("region"), "ap-south-1");

  vars_.erase("AWS_PROFILE");
  EXPECT_EQ(loadProfile(mapEnvironment(vars_))->get("region"), "eu-west-1");
}

TEST_F(SharedConfigTest, DefaultPathsComeFromHome) {
  vars_.erase("AWS_CONFIG_FILE");
  vars_.erase("AWS_SHARED_CREDENTIALS_FILE");
  vars_["HOME"] = dir_;
  std::filesystem::create_directories(dir_ + "/.aws");
  write(".aws/credentials",
        "[default]\naws_access_key_id = AKIDHOME\n"
        "aws_secret_access_key = s\n");
  auto paths = sharedConfigPaths(mapEnvironment(vars_));
  EXPECT_EQ(paths.configFile, dir_ + "/.aws/config");
  EXPECT_EQ(paths.credentialsFile, dir_ + "/.aws/credentials");
  EXPECT_EQ(paths.profile, "default");
  EXPECT_EQ(credentials()->accessKeyId, "AKIDHOME");
}

TEST_F(SharedConfigTest, MissingFilesAreNotFoundButAMissingNamedProfileIsAnError) {
  auto none = credentials();
  ASSERT_FALSE(none);
  EXPECT_TRUE(isCredentialsNotFound(none.error())) << none.error().message;

  vars_["AWS_PROFILE"] = "ghost";
  auto ghost = credentials();
  ASSERT_FALSE(ghost);
  EXPECT_EQ(ghost.error().code, "ProfileNotFound");
  EXPECT_NE(ghost.error().message.find("profile \"ghost\""), std::string::npos);
}

TEST_F(SharedConfigTest, MalformedFileFailsWithItsPath) {
  write("credentials", "[default]\naws_access_key_id = AKID\n" + std::string(kSecret) + "\n");
  auto got = credentials();
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code, "InvalidConfigFile");
  EXPECT_EQ(got.error().message, dir_ + "/credentials:3: expected '[section]' or 'key = value'");
}

TEST_F(SharedConfigTest, HalfAKeyPairAndUnsupportedRolesAreErrors) {
  write("credentials", "[default]\naws_secret_access_key = " + std::string(kSecret) + "\n");
  auto half = credentials();
  ASSERT_FALSE(half);
  EXPECT_EQ(half.error().code, "InvalidConfigFile");
  EXPECT_EQ(half.error().message.find(kSecret), std::string::npos);

  write("credentials", "");
  write("config", "[default]\nrole_arn = arn:aws:iam::1:role/r\nsource_profile = base\n");
  auto role = credentials();
  ASSERT_FALSE(role);
  EXPECT_NE(role.error().message.find("web_identity_token_file"), std::string::npos);

  write("config", "[default]\ncredential_process = /bin/creds\n");
  auto process = credentials();
  ASSERT_FALSE(process);
  EXPECT_NE(process.error().message.find("credential_process is not supported"), std::string::npos);
}

TEST_F(SharedConfigTest, ProfileWithKeysMissingIsNotFound) {
  write("config", "[default]\nregion = us-east-1\n");
  auto got = credentials();
  ASSERT_FALSE(got);
  EXPECT_TRUE(isCredentialsNotFound(got.error())) << got.error().message;
}

}  // namespace
}  // namespace nodewright::aws
