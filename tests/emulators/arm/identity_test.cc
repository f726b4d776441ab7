// The emulated Entra endpoints and ARM's authentication of every request.
#include <gtest/gtest.h>

#include "emulators/arm/arm_fixture.h"
#include "emulators/arm/jwt.h"
#include "support/emulators/rsa_test_keys.h"

namespace nodewright::emulators::arm {
namespace {

using namespace std::chrono_literals;
using testing::ArmFixture;
using testing::HttpsReply;

constexpr std::string_view kTenant = "00000000-0000-0000-0000-000000000001";
constexpr std::string_view kFormType = "Content-Type: application/x-www-form-urlencoded";

class ArmIdentityTest : public ArmFixture {
 protected:
  HttpsReply tokenRequest(const std::string& form, std::string_view tenant = kTenant) {
    return client_->send("POST", server_->url() + "/" + std::string(tenant) + "/oauth2/v2.0/token",
                         form, {std::string(kFormType)});
  }
  static std::string secretForm(std::string_view client, std::string_view secret) {
    return "grant_type=client_credentials&client_id=" + std::string(client) +
           "&client_secret=" + std::string(secret) +
           "&scope=https%3A%2F%2Fmanagement.azure.com%2F.default";
  }
  // `claims` signed RS256 with test key `key` (0: the one registered where one is).
  static std::string signedAssertion(const api::Json& claims, int key = 0,
                                     api::Json header = {{"kid", "k"}}) {
    auto token = jwt::signRs256(std::move(header), claims,
                                emulators::testing::rsaTestKey(key).privateKeyPem);
    EXPECT_TRUE(token.has_value());
    return token.value_or("");
  }
  std::string assertionForm(const api::Json& claims, std::string_view client = "wi-app",
                            int key = 0) {
    return assertionFormWith(signedAssertion(claims, key), client);
  }
  static std::string assertionFormWith(const std::string& assertion,
                                       std::string_view client = "wi-app") {
    return "grant_type=client_credentials&client_id=" + std::string(client) +
           "&scope=https%3A%2F%2Fmanagement.azure."
           "com%2F.default&client_assertion_type=urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-"
           "type%3Ajwt-bearer&client_assertion=" +
           assertion;
  }
  api::Json workloadClaims(int64_t expiresIn = 3600) {
    const int64_t now =
        std::chrono::duration_cast<std::chrono::seconds>(clock_.now().time_since_epoch()).count();
    return {{"aud", {"api://AzureADTokenExchange"}},
            {"iss", "https://oidc.example/cluster"},
            {"sub", "system:serviceaccount:capz-system:capz-manager"},
            {"iat", now},
            {"nbf", now},
            {"exp", now + expiresIn}};
  }
  // A group GET with `token` as the bearer: what ARM thinks of the token.
  HttpsReply armWith(const std::string& authorization) {
    std::vector<std::string> headers;
    if (!authorization.empty()) {
      headers.push_back("Authorization: " + authorization);
    }
    return client_->send("GET", url(group()), {}, headers);
  }
  static std::string accessToken(const HttpsReply& r) { return r.json().value("access_token", ""); }
};

TEST_F(ArmIdentityTest, ClientSecretGivesATokenArmAccepts) {
  HttpsReply r = tokenRequest(secretForm("any-app", "any-secret"));
  ASSERT_EQ(r.status, 200) << r.body;
  api::Json body = r.json();
  EXPECT_EQ(body["token_type"], "Bearer");
  EXPECT_EQ(body["expires_in"], 3599);
  EXPECT_EQ(r.header("cache-control"), "no-store, no-cache");
  auto claims = jwt::decodeUnverified(accessToken(r));
  ASSERT_TRUE(claims);
  EXPECT_EQ(claims->header["alg"], "HS256");
  EXPECT_EQ(claims->payload["aud"], "https://management.azure.com/");
  EXPECT_EQ(claims->payload["appid"], "any-app");
  EXPECT_EQ(claims->payload["tid"], kTenant);
  // The group does not exist, but the request got past authentication.
  EXPECT_EQ(armWith("Bearer " + accessToken(r)).code(), "ResourceGroupNotFound");
}

TEST_F(ArmIdentityTest, TokenRequestsAreValidatedAsEntraDoes) {
  HttpsReply noScope = tokenRequest("grant_type=client_credentials&client_id=a&client_secret=b");
  EXPECT_EQ(noScope.status, 400);
  EXPECT_EQ(noScope.json()["error"], "invalid_request");
  EXPECT_EQ(noScope.json()["error_codes"], api::Json({900144}));
  HttpsReply badScope = tokenRequest(
      "grant_type=client_credentials&client_id=a&client_secret=b&scope=https://management.azure."
      "com/user_impersonation");
  EXPECT_EQ(badScope.json()["error"], "invalid_scope");
  HttpsReply wrongTenant = tokenRequest(secretForm("a", "b"), "not-my-tenant");
  EXPECT_EQ(wrongTenant.json()["error_codes"], api::Json({90002}));
  HttpsReply noCredential = tokenRequest(
      "grant_type=client_credentials&client_id=a&scope=https%3A%2F%2Fmanagement.azure.com%2F."
      "default");
  EXPECT_EQ(noCredential.status, 401);
  EXPECT_EQ(noCredential.json()["error_codes"], api::Json({7000218}));
}

class ArmConfiguredSecretTest : public ArmIdentityTest {
 protected:
  ArmEmulatorOptions options() override {
    ArmEmulatorOptions o = ArmIdentityTest::options();
    o.clientSecrets = {{"capz", "s3cret"}};
    return o;
  }
};

TEST_F(ArmConfiguredSecretTest, OnlyTheConfiguredSecretIsAccepted) {
  EXPECT_EQ(tokenRequest(secretForm("capz", "s3cret")).status, 200);
  HttpsReply wrong = tokenRequest(secretForm("capz", "s3cre7"));
  EXPECT_EQ(wrong.status, 401);
  EXPECT_EQ(wrong.json()["error"], "invalid_client");
  EXPECT_EQ(wrong.json()["error_codes"], api::Json({7000215}));
  EXPECT_EQ(wrong.body.find("s3cre7"), std::string::npos) << "the secret must not be echoed";
  HttpsReply unknown = tokenRequest(secretForm("other", "s3cret"));
  EXPECT_EQ(unknown.status, 400);
  EXPECT_EQ(unknown.json()["error"], "unauthorized_client");
}

TEST_F(ArmConfiguredSecretTest, AssertionsNeedAFederatedCredentialOnceClientsAreConfigured) {
  HttpsReply stranger = tokenRequest(assertionForm(workloadClaims(), "wi-app"));
  EXPECT_EQ(stranger.status, 400);
  EXPECT_EQ(stranger.json()["error_codes"], api::Json({700016}));
  HttpsReply noFederation = tokenRequest(assertionForm(workloadClaims(), "capz"));
  EXPECT_EQ(noFederation.status, 400);
  EXPECT_EQ(noFederation.json()["error_codes"], api::Json({70021}));
}

// Entra verifies what it cannot otherwise trust: with no key registered for the client, even a
// well-signed assertion is refused.
TEST_F(ArmIdentityTest, AssertionsAreRefusedWithoutAKeyRegisteredForTheClient) {
  HttpsReply r = tokenRequest(assertionForm(workloadClaims()));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.json()["error"], "invalid_client");
  EXPECT_EQ(r.json()["error_codes"], api::Json({70021}));
}

class ArmFederatedTest : public ArmConfiguredSecretTest {
 protected:
  ArmEmulatorOptions options() override {
    ArmEmulatorOptions o = ArmConfiguredSecretTest::options();
    FederatedCredential c;
    c.issuer = "https://oidc.example/cluster";
    c.subject = "system:serviceaccount:capz-system:capz-manager";
    c.issuerKeyPem = emulators::testing::rsaTestKey(0).publicKeyPem;
    o.federatedCredentials = {{"wi-app", {c}}};
    return o;
  }
};

TEST_F(ArmFederatedTest, AnAssertionSignedByTheIssuerGivesATokenArmAccepts) {
  HttpsReply ok = tokenRequest(assertionForm(workloadClaims()));
  ASSERT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(armWith("Bearer " + accessToken(ok)).code(), "ResourceGroupNotFound");
}

TEST_F(ArmFederatedTest, ASignatureByAnotherKeyOrNoneIsRefused) {
  HttpsReply otherKey = tokenRequest(assertionForm(workloadClaims(), "wi-app", 1));
  EXPECT_EQ(otherKey.status, 401);
  EXPECT_EQ(otherKey.json()["error"], "invalid_client");
  EXPECT_EQ(otherKey.json()["error_codes"], api::Json({700027}));

  const std::string good = signedAssertion(workloadClaims());
  const std::string unsigned_ = good.substr(0, good.rfind('.') + 1) + "c2lnbmF0dXJl";
  EXPECT_EQ(tokenRequest(assertionFormWith(unsigned_)).json()["error_codes"], api::Json({700027}));
  // The claims changed under a valid signature.
  api::Json more = workloadClaims(7200);
  const std::string tampered = good.substr(0, good.find('.') + 1) +
                               jwt::base64UrlEncode(api::dumpJson(more)) +
                               good.substr(good.rfind('.'));
  EXPECT_EQ(tokenRequest(assertionFormWith(tampered)).json()["error_codes"], api::Json({700027}));
}

TEST_F(ArmFederatedTest, OnlyRs256IsAccepted) {
  const std::string hs = jwt::signHs256(workloadClaims(), "shared");
  HttpsReply r = tokenRequest(assertionFormWith(hs));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.json()["error_codes"], api::Json({5002738}));
  const std::string none = jwt::base64UrlEncode(R"({"alg":"none"})") + "." +
                           jwt::base64UrlEncode(api::dumpJson(workloadClaims())) + ".";
  EXPECT_EQ(tokenRequest(assertionFormWith(none)).json()["error_codes"], api::Json({5002738}));
}

TEST_F(ArmFederatedTest, IssuerSubjectAudienceAndValidityMustMatchTheCredential) {
  api::Json issuer = workloadClaims();
  issuer["iss"] = "https://oidc.example/another";
  EXPECT_EQ(tokenRequest(assertionForm(issuer)).json()["error_codes"], api::Json({700211}));
  api::Json subject = workloadClaims();
  subject["sub"] = "system:serviceaccount:default:intruder";
  EXPECT_EQ(tokenRequest(assertionForm(subject)).json()["error_codes"], api::Json({700213}));
  api::Json audience = workloadClaims();
  audience["aud"] = "api://something-else";
  EXPECT_EQ(tokenRequest(assertionForm(audience)).json()["error_codes"], api::Json({700212}));
  EXPECT_EQ(tokenRequest(assertionForm(workloadClaims(-60))).json()["error_codes"],
            api::Json({700024}));
  api::Json early = workloadClaims();
  early["nbf"] = early["iat"].get<int64_t>() + 3600;
  EXPECT_EQ(tokenRequest(assertionForm(early)).json()["error_codes"], api::Json({700024}));
  HttpsReply malformed = tokenRequest(assertionFormWith("abc"));
  EXPECT_EQ(malformed.status, 400);
  EXPECT_EQ(malformed.json()["error_codes"], api::Json({50027}));
}

// A certificate credential: the application signs its own assertion and names the certificate.
class ArmCertificateTest : public ArmIdentityTest {
 protected:
  ArmEmulatorOptions options() override {
    ArmEmulatorOptions o = ArmIdentityTest::options();
    o.clientCertificates = {{"cert-app", emulators::testing::rsaTestKey(0).certificatePem}};
    return o;
  }
  api::Json appClaims() {
    const int64_t now =
        std::chrono::duration_cast<std::chrono::seconds>(clock_.now().time_since_epoch()).count();
    return {{"aud", server_->url() + "/" + std::string(kTenant) + "/oauth2/v2.0/token"},
            {"iss", "cert-app"},
            {"sub", "cert-app"},
            {"jti", "a4d8f0e2"},
            {"nbf", now},
            {"exp", now + 600}};
  }
  static api::Json namesCertificate() {
    auto thumbprint =
        jwt::certificateThumbprint(emulators::testing::rsaTestKey(0).certificatePem, true);
    EXPECT_TRUE(thumbprint.has_value());
    return {{"typ", "JWT"}, {"x5t#S256", thumbprint.value_or("")}};
  }
};

TEST_F(ArmCertificateTest, AnAssertionSignedWithTheRegisteredCertificateIsAccepted) {
  HttpsReply ok = tokenRequest(
      assertionFormWith(signedAssertion(appClaims(), 0, namesCertificate()), "cert-app"));
  ASSERT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(armWith("Bearer " + accessToken(ok)).code(), "ResourceGroupNotFound");
}

TEST_F(ArmCertificateTest, AnotherKeyAnotherCertificateOrWrongClaimsAreRefused) {
  HttpsReply otherKey = tokenRequest(
      assertionFormWith(signedAssertion(appClaims(), 1, namesCertificate()), "cert-app"));
  EXPECT_EQ(otherKey.status, 401);
  EXPECT_EQ(otherKey.json()["error_codes"], api::Json({700027}));
  api::Json otherCert = {{"x5t#S256", jwt::base64UrlEncode("not the registered certificate")}};
  HttpsReply unknown =
      tokenRequest(assertionFormWith(signedAssertion(appClaims(), 0, otherCert), "cert-app"));
  EXPECT_EQ(unknown.status, 401);
  EXPECT_EQ(unknown.json()["error_codes"], api::Json({700027}));
  api::Json issuer = appClaims();
  issuer["iss"] = "someone-else";
  EXPECT_EQ(
      tokenRequest(assertionFormWith(signedAssertion(issuer, 0, namesCertificate()), "cert-app"))
          .json()["error_codes"],
      api::Json({700021}));
  api::Json audience = appClaims();
  audience["aud"] = "https://management.azure.com/";
  EXPECT_EQ(
      tokenRequest(assertionFormWith(signedAssertion(audience, 0, namesCertificate()), "cert-app"))
          .json()["error_codes"],
      api::Json({50013}));
}

TEST_F(ArmIdentityTest, ManagedIdentityEndpointNeedsTheMetadataHeader) {
  const std::string imds = server_->url() +
                           "/metadata/identity/oauth2/token?api-version=2018-02-01&resource="
                           "https%3A%2F%2Fmanagement.azure.com%2F";
  HttpsReply refused = client_->send("GET", imds);
  EXPECT_EQ(refused.status, 400);
  EXPECT_EQ(refused.json()["error_description"], "Required metadata header not specified");
  HttpsReply r = client_->send("GET", imds, {}, {"Metadata: true"});
  ASSERT_EQ(r.status, 200) << r.body;
  api::Json body = r.json();
  EXPECT_EQ(body["token_type"], "Bearer");
  EXPECT_EQ(body["resource"], "https://management.azure.com/");
  EXPECT_EQ(body["expires_in"], "86399");
  EXPECT_TRUE(body["expires_on"].is_string());
  EXPECT_EQ(armWith("Bearer " + accessToken(r)).code(), "ResourceGroupNotFound");
}

TEST_F(ArmIdentityTest, ManagedIdentityEndpointServesOnlyItsIdentity) {
  const std::string imds = server_->url() +
                           "/metadata/identity/oauth2/token?api-version=2018-02-01&resource="
                           "https%3A%2F%2Fmanagement.azure.com%2F&client_id=";
  HttpsReply other = client_->send("GET", imds + "someone-else", {}, {"Metadata: true"});
  EXPECT_EQ(other.status, 400);
  EXPECT_EQ(other.json()["error_description"], "Identity not found");
  EXPECT_FALSE(other.json().contains("access_token"));
  HttpsReply own =
      client_->send("GET", imds + "00000000-0000-0000-0000-0000000000aa", {}, {"Metadata: true"});
  ASSERT_EQ(own.status, 200) << own.body;
  auto claims = jwt::decodeUnverified(accessToken(own));
  ASSERT_TRUE(claims);
  EXPECT_EQ(claims->payload["appid"], "00000000-0000-0000-0000-0000000000aa");
}

TEST_F(ArmIdentityTest, ArmRefusesTokensForOtherAudiencesAndTenants) {
  const std::string vault =
      server_->emulator().identity().issue("test-client", "https://vault.azure.net", 3599s);
  HttpsReply wrongAudience = armWith("Bearer " + vault);
  EXPECT_EQ(wrongAudience.status, 401);
  EXPECT_EQ(wrongAudience.code(), "InvalidAuthenticationTokenAudience");
  HttpsReply vaultScope = tokenRequest(
      "grant_type=client_credentials&client_id=a&client_secret=b&scope=https%3A%2F%2Fvault.azure."
      "net%2F.default");
  ASSERT_EQ(vaultScope.status, 200);
  EXPECT_EQ(armWith("Bearer " + accessToken(vaultScope)).code(),
            "InvalidAuthenticationTokenAudience");
  HttpsReply classic = tokenRequest(
      "grant_type=client_credentials&client_id=a&client_secret=b&scope=https%3A%2F%2Fmanagement."
      "core.windows.net%2F%2F.default");
  ASSERT_EQ(classic.status, 200);
  EXPECT_EQ(armWith("Bearer " + accessToken(classic)).code(), "ResourceGroupNotFound");

  auto claims = jwt::decodeUnverified(token_);
  ASSERT_TRUE(claims);
  api::Json foreign = claims->payload;
  foreign["tid"] = "99999999-0000-0000-0000-000000000009";
  foreign["iss"] = "https://sts.windows.net/99999999-0000-0000-0000-000000000009/";
  HttpsReply wrongTenant = armWith("Bearer " + server_->emulator().identity().sign(foreign));
  EXPECT_EQ(wrongTenant.status, 401);
  EXPECT_EQ(wrongTenant.code(), "InvalidAuthenticationTokenTenant");
  api::Json mixed = claims->payload;
  mixed["iss"] = "https://sts.windows.net/99999999-0000-0000-0000-000000000009/";
  EXPECT_EQ(armWith("Bearer " + server_->emulator().identity().sign(mixed)).code(),
            "InvalidAuthenticationTokenTenant");
}

TEST_F(ArmIdentityTest, ArmRefusesMissingForeignAndExpiredTokens) {
  HttpsReply missing = armWith("");
  EXPECT_EQ(missing.status, 401);
  EXPECT_EQ(missing.code(), "AuthenticationFailed");
  EXPECT_TRUE(missing.header("www-authenticate").starts_with("Bearer "))
      << missing.header("www-authenticate");
  EXPECT_EQ(armWith("Basic dXNlcjpwYXNz").code(), "AuthenticationFailed");
  EXPECT_EQ(armWith("Bearer not-a-jwt").code(), "InvalidAuthenticationToken");

  // A token from another emulator (another signing key) is not ours.
  core::FakeClock otherClock;
  Identity other(otherClock, IdentityOptions{});
  const std::string foreign = other.issue("test-client", "https://management.azure.com/", 3599s);
  EXPECT_EQ(armWith("Bearer " + foreign).code(), "InvalidAuthenticationToken");

  // Tokens last their lifetime plus ARM's five minutes of clock skew.
  EXPECT_EQ(armWith("Bearer " + token_).code(), "ResourceGroupNotFound");
  advance(3599s + 5min - 1s);
  EXPECT_EQ(armWith("Bearer " + token_).code(), "ResourceGroupNotFound");
  advance(1s);
  HttpsReply expired = armWith("Bearer " + token_);
  EXPECT_EQ(expired.status, 401);
  EXPECT_EQ(expired.code(), "ExpiredAuthenticationToken");
}

TEST_F(ArmIdentityTest, ApiVersionIsRequiredAndRequestIdsAreSent) {
  HttpsReply r =
      client_->send("GET", server_->url() + group(), {},
                    {"Authorization: Bearer " + token_, "x-ms-correlation-request-id: corr-1",
                     "x-ms-client-request-id: client-1"});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.json(), api::Json::parse(R"({"error":{"code":"MissingApiVersionParameter",
      "message":"The api-version query parameter (?api-version=) is required for all requests."}})"));
  EXPECT_EQ(r.header("x-ms-request-id").size(), 36u);
  EXPECT_EQ(r.header("x-ms-correlation-request-id"), "corr-1");
  EXPECT_EQ(r.header("x-ms-client-request-id"), "client-1");
  HttpsReply bad = client_->send("GET", server_->url() + group() + "?api-version=latest", {},
                                 {"Authorization: Bearer " + token_});
  EXPECT_EQ(bad.code(), "InvalidApiVersionParameter");
  HttpsReply ok = call("GET", group());
  EXPECT_EQ(ok.header("x-ms-correlation-request-id"), ok.header("x-ms-request-id"));
}

TEST(ArmJwtTest, Base64UrlRoundTripsAndSignaturesVerify) {
  for (std::string text : {"", "f", "fo", "foo", "foob", "fooba", "foobar", "\xff\xfe\x00"}) {
    EXPECT_EQ(jwt::base64UrlDecode(jwt::base64UrlEncode(text)), text);
  }
  EXPECT_EQ(jwt::base64UrlEncode("\xfb\xff"), "-_8");
  EXPECT_FALSE(jwt::base64UrlDecode("a+b"));
  const std::string token = jwt::signHs256({{"a", 1}}, "key");
  EXPECT_EQ(jwt::verifyHs256(token, "key"), api::Json({{"a", 1}}));
  EXPECT_FALSE(jwt::verifyHs256(token, "other"));
  EXPECT_FALSE(jwt::verifyHs256(token + "x", "key"));
}

}  // namespace
}  // namespace nodewright::emulators::arm
