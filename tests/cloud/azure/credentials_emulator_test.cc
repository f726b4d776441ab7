#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "cloud/azure/arm_fixture.h"
#include "cloud/azure/managed_identity.h"

namespace nodewright::cloud::azure {
namespace {

using namespace armtest;
using lro::OpStatus;
using lro::Verb;
using Kind = lro::CallError::Kind;

class CredentialsEmulatorTest : public ArmEmulatorFixture {};

TEST_F(CredentialsEmulatorTest, WorkloadIdentityReadsTheTokenFileOnEveryAcquisition) {
  const std::string path = testing::TempDir() + "azure-federated-token";
  auto write = [&](const std::string& content) {
    std::ofstream out(path, std::ios::trunc);
    out << content;
  };
  write(serviceAccountToken(clock_.now(), 1h));
  WorkloadIdentityCredential workload(entra(kClientId), path, *transport_, clock_);
  auto client = makeClient(workload);
  createResourceGroup();
  auto got = client->get(ref(kRgId, "resourcegroups"), kCall);
  ASSERT_TRUE(got.has_value()) << got.error().message;

  write(serviceAccountToken(clock_.now(), -1h));  // rotated to an expired one
  auto refused = workload.getToken(kArmScope, kCall);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().kind, Kind::Auth);
  EXPECT_EQ(refused.error().message.find("eyJ"), std::string::npos) << "no assertion in errors";
  std::remove(path.c_str());
}

TEST_F(CredentialsEmulatorTest, ManagedIdentityTokenWorksForArm) {
  ManagedIdentityOptions options;
  options.endpoint = server_->url();
  ManagedIdentityCredential identity(options, *transport_, clock_);
  auto token = identity.getToken(kArmScope, kCall);
  ASSERT_TRUE(token.has_value()) << token.error().message;
  EXPECT_EQ(token->expiresOn, clock_.now() + 86399s);
  auto client = makeClient(identity);
  auto begun =
      client->begin(Verb::Put, ref(kRgId, "resourcegroups"), {{"location", "eastus"}}, kCall);
  ASSERT_TRUE(begun.has_value()) << begun.error().message;
}

// Counts what reaches the real credential under a cache.
class CountingCredential final : public TokenCredential {
 public:
  explicit CountingCredential(TokenCredentialPtr inner) : inner_(std::move(inner)) {}
  lro::CallResult<AccessToken> getToken(const std::string& scope,
                                        std::chrono::milliseconds timeout) override {
    ++fetches;
    return inner_->getToken(scope, timeout);
  }
  std::string name() const override { return inner_->name(); }
  int fetches = 0;

 private:
  TokenCredentialPtr inner_;
};

TEST_F(CredentialsEmulatorTest, CachedTokenIsRefreshedFiveMinutesBeforeExpiry) {
  auto counting = std::make_unique<CountingCredential>(secretCredential(kClientId, kSecret));
  CountingCredential* source = counting.get();
  TokenCache cache(std::move(counting), clock_);
  auto client = makeClient(cache);
  ASSERT_TRUE(
      client->begin(Verb::Put, ref(kRgId, "resourcegroups"), {{"location", "eastus"}}, kCall));
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(client->get(ref(kRgId, "resourcegroups"), kCall).has_value());
  }
  EXPECT_EQ(source->fetches, 1);
  clock_.advance(54min);  // the emulator's tokens live 3599 s
  ASSERT_TRUE(client->get(ref(kRgId, "resourcegroups"), kCall).has_value());
  EXPECT_EQ(source->fetches, 1);
  clock_.advance(2min);
  auto got = client->get(ref(kRgId, "resourcegroups"), kCall);
  ASSERT_TRUE(got.has_value()) << got.error().message;
  EXPECT_EQ(source->fetches, 2);
}

TEST_F(CredentialsEmulatorTest, ForgedTokenIsAuth) {
  class Static final : public TokenCredential {
   public:
    lro::CallResult<AccessToken> getToken(const std::string&, std::chrono::milliseconds) override {
      return AccessToken{"not-a-jwt", core::TimePoint::max()};
    }
    std::string name() const override { return "static"; }
  } forged;
  auto client = makeClient(forged);
  auto got = client->get(ref(kRgId, "resourcegroups"), kCall);
  ASSERT_FALSE(got.has_value());
  EXPECT_EQ(got.error().kind, Kind::Auth);
  EXPECT_EQ(got.error().code, "InvalidAuthenticationToken");
  EXPECT_EQ(got.error().message.find("not-a-jwt"), std::string::npos);
}

class ClientSecretEmulatorTest : public ArmEmulatorFixture {
 protected:
  void SetUp() override {
    ArmEmulatorOptions options;
    options.clientSecrets = {{kClientId, kSecret}};
    start(std::move(options));
  }
};

TEST_F(ClientSecretEmulatorTest, WrongSecretIsAuthWithoutTheSecret) {
  auto wrong = cached(secretCredential(kClientId, "wrong-secret-123"), clock_);
  auto client = makeClient(*wrong);
  auto got = client->get(ref(kRgId, "resourcegroups"), kCall);
  ASSERT_FALSE(got.has_value());
  EXPECT_EQ(got.error().kind, Kind::Auth);
  EXPECT_EQ(got.error().code, "invalid_client");
  EXPECT_EQ(got.error().message.find("wrong-secret-123"), std::string::npos);
  auto right =
      client_->begin(Verb::Put, ref(kRgId, "resourcegroups"), {{"location", "eastus"}}, kCall);
  ASSERT_TRUE(right.has_value()) << right.error().message;
}

}  // namespace
}  // namespace nodewright::cloud::azure
