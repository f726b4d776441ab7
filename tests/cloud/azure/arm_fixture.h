#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <memory>
#include <string>

#include "cloud/azure/arm_client.h"
#include "cloud/azure/entra_credentials.h"
#include "cloud/azure/poller.h"
#include "emulators/arm/jwt.h"
#include "emulators/arm/server.h"
#include "support/emulators/rsa_test_keys.h"

// What the tests of our ARM client against the ARM emulator share: the emulator over real
// HTTPS on a FakeClock (operations finish when a test advances it, so every poll's answer is
// known), a client-secret credential and an ArmClient wired as production wires them.
namespace nodewright::cloud::azure::armtest {

using namespace std::chrono_literals;
using emulators::arm::ArmEmulatorOptions;
using emulators::arm::ArmServer;

constexpr const char* kTenant = "00000000-0000-0000-0000-000000000001";
constexpr const char* kClientId = "11111111-1111-1111-1111-111111111111";
constexpr const char* kSecret = "emulator-secret-value";
inline const std::string kSub = "/subscriptions/22222222-2222-2222-2222-222222222222";
inline const std::string kRgId = kSub + "/resourceGroups/rg-lro";
inline const std::string kVnetId = kRgId + "/providers/Microsoft.Network/virtualNetworks/vnet";
inline const std::string kNatId = kRgId + "/providers/Microsoft.Network/natGateways/nat";
inline constexpr auto kCall = 5s;  // real time is what bounds the HTTPS exchanges in these tests

inline lro::ResourceRef ref(const std::string& id, const std::string& service) {
  lro::ResourceRef r;
  r.id = id;
  r.resourceGroup = "rg-lro";
  r.serviceName = service;
  r.name = id.substr(id.rfind('/') + 1);
  return r;
}

inline api::Json vnetBody() {
  return {{"location", "eastus"},
          {"properties", {{"addressSpace", {{"addressPrefixes", {"10.0.0.0/16"}}}}}}};
}

constexpr const char* kServiceAccountIssuer = "https://oidc.example/issuer";
constexpr const char* kServiceAccountSubject = "system:serviceaccount:capz-system:capz-manager";

// A projected service account token, as the workload identity webhook mounts it: signed RS256 by
// the cluster's issuer (test key 0, which the fixture's emulator registers for kClientId).
inline std::string serviceAccountToken(core::TimePoint now, std::chrono::seconds validFor) {
  const auto at = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch());
  const api::Json claims = {{"aud", {"api://AzureADTokenExchange"}},
                            {"iss", kServiceAccountIssuer},
                            {"sub", kServiceAccountSubject},
                            {"iat", at.count()},
                            {"exp", (at + validFor).count()}};
  auto token = emulators::arm::jwt::signRs256({{"typ", "JWT"}}, claims,
                                              emulators::testing::rsaTestKey(0).privateKeyPem);
  EXPECT_TRUE(token.has_value());
  return token.value_or("");
}

// kClientId's federated credential: the issuer of serviceAccountToken().
inline emulators::arm::FederatedCredential serviceAccountFederation() {
  emulators::arm::FederatedCredential c;
  c.issuer = kServiceAccountIssuer;
  c.subject = kServiceAccountSubject;
  c.issuerKeyPem = emulators::testing::rsaTestKey(0).publicKeyPem;
  return c;
}

class ArmEmulatorFixture : public testing::Test {
 protected:
  void SetUp() override { start({}); }

  // `options` with kClientId's federated credential added.
  void start(ArmEmulatorOptions options) {
    options.federatedCredentials[kClientId].push_back(serviceAccountFederation());
    auto server = ArmServer::start(clock_, std::move(options));
    ASSERT_TRUE(server.has_value()) << server.error().message();
    server_ = std::move(*server);
    CurlTransportOptions transportOptions;
    transportOptions.caPem = server_->caPem();
    transport_ = makeCurlTransport(transportOptions);
    credential_ = cached(secretCredential(kClientId, kSecret), clock_);
    client_ = makeClient(*credential_);
  }

  TokenCredentialPtr secretCredential(const std::string& clientId, const std::string& secret) {
    return std::make_unique<ClientSecretCredential>(entra(clientId), secret, *transport_, clock_);
  }

  EntraOptions entra(const std::string& clientId) {
    EntraOptions options;
    options.authorityHost = server_->url();
    options.tenantId = kTenant;
    options.clientId = clientId;
    return options;
  }

  std::unique_ptr<ArmClient> makeClient(TokenCredential& credential) {
    return makeClient(credential, clock_);
  }
  // A client whose waits go to `clock` (a view of clock_ that sees them).
  std::unique_ptr<ArmClient> makeClient(TokenCredential& credential, const core::Clock& clock) {
    ArmClientOptions options;
    options.endpoint = server_->url();
    return std::make_unique<ArmClient>(options, *transport_, credential, clock);
  }

  // Creates the resource group and waits for it.
  void createResourceGroup() {
    auto state = client_->begin(lro::Verb::Put, ref(kRgId, "resourcegroups"),
                                {{"location", "eastus"}}, kCall);
    ASSERT_TRUE(state.has_value()) << state.error().message;
    finish(*state);
  }

  // Polls a running operation to its end, advancing the clock between polls.
  lro::OpState finish(lro::OpState state, ArmClient* client = nullptr) {
    client = client != nullptr ? client : client_.get();
    for (int i = 0; i < 100 && !state.done(); ++i) {
      clock_.advance(state.retryAfter.value_or(5s));
      auto next = client->poll(state.resumeToken, kCall);
      EXPECT_TRUE(next.has_value()) << next.error().message;
      if (!next) {
        break;
      }
      state = *next;
    }
    EXPECT_TRUE(state.done());
    return state;
  }

  lro::OpState create(const std::string& id, const std::string& service, const api::Json& body) {
    auto state = client_->begin(lro::Verb::Put, ref(id, service), body, kCall);
    EXPECT_TRUE(state.has_value()) << state.error().message;
    return state ? finish(*state) : lro::OpState{};
  }

  // GET /admin/stats, with our transport (the admin API takes no token).
  api::Json adminStats() {
    HttpRequest request;
    request.url = server_->url() + "/admin/stats";
    auto response = transport_->send(request, kCall);
    EXPECT_TRUE(response.has_value());
    return response ? api::Json::parse(response->body, nullptr, false) : api::Json();
  }

  int64_t putsOf(const std::string& id) {
    std::string key = id;
    std::transform(key.begin(), key.end(), key.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const api::Json stats = adminStats();
    auto puts = stats.find("puts");
    if (puts == stats.end() || !puts->contains(key)) {
      return 0;
    }
    return (*puts)[key].get<int64_t>();
  }

  core::FakeClock clock_;
  std::unique_ptr<ArmServer> server_;
  TransportPtr transport_;
  TokenCredentialPtr credential_;
  std::unique_ptr<ArmClient> client_;
};

}  // namespace nodewright::cloud::azure::armtest
