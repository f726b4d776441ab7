// The wire contract the clients rely on: authentication, error Status bodies for bad input,
// pagination, and watch resume / 410 / bookmarks.

#include <set>

#include <gtest/gtest.h>

#include "support/apiserver/fixtures.h"
#include "support/apiserver/test_server.h"

namespace nodewright::apiserver {
namespace {

using api::Json;
using namespace std::chrono_literals;

Json parse(const http::Response& response) {
  return Json::parse(response.body);
}

class ApiServerProtocol : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ApiServerOptions options;
    options.watchHistory = 20;
    options.bookmarkInterval = 50ms;
    server_ = new testing::TestApiServer(options);
  }
  static void TearDownTestSuite() { delete server_; }

  static testing::TestApiServer* server_;
};
testing::TestApiServer* ApiServerProtocol::server_ = nullptr;

TEST_F(ApiServerProtocol, RequestsWithoutAValidTokenGet401Status) {
  http::ClientOptions options;
  options.port = server_->port();
  options.caPem = server_->caPem();
  for (std::string token : {"", "wrong-token"}) {
    options.token = token;
    auto client = http::connectClient(options);
    ASSERT_TRUE(client);
    auto response = (*client)->send("GET", "/api/v1/namespaces");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 401);
    Json status = parse(*response);
    EXPECT_EQ(status["kind"], "Status");
    EXPECT_EQ(status["reason"], "Unauthorized");
    EXPECT_EQ(status["code"], 401);
  }
}

TEST_F(ApiServerProtocol, KubeconfigAndCredentialsArePrivate) {
  for (const char* file : {"/kubeconfig", "/pki/token", "/pki/ca.key", "/pki/apiserver.key"}) {
    auto status = std::filesystem::status(server_->dataDir() + file);
    EXPECT_EQ(status.permissions() &
                  (std::filesystem::perms::group_all | std::filesystem::perms::others_all),
              std::filesystem::perms::none)
        << file;
  }
}

TEST_F(ApiServerProtocol, BadInputGetsTheRightStatusAndStoresNothing) {
  auto client = server_->client();
  const std::string cms = "/api/v1/namespaces/default/configmaps";
  struct Case {
    std::string method, path, body, contentType;
    int code;
    std::string reason;
  };
  std::string huge(3 * 1024 * 1024 + 10, 'x');
  Json good = testing::configMap("default", "bad-input-target");
  Json unknownField = testing::configMap("default", "unknown-field");
  unknownField["spec"] = {{"surprise", true}};
  Json wrongKind = good;
  wrongKind["kind"] = "Secret";
  Json badNodePool = {{"apiVersion", "karpenter.sh/v1"},
                      {"kind", "NodePool"},
                      {"metadata", {{"name", "bad"}}},
                      {"spec", {{"weight", 1000}, {"template", {{"spec", Json::object()}}}}}};
  std::vector<Case> cases = {
      {"POST", cms, "{\"apiVersion\": ", "application/json", 400, "BadRequest"},
      {"POST", cms, "a: [b\n", "application/yaml", 400, "BadRequest"},
      {"POST", cms, api::dumpJson(wrongKind), "application/json", 400, "BadRequest"},
      {"POST", cms + "?fieldValidation=Strict", api::dumpJson(unknownField), "application/json",
       400, "BadRequest"},
      {"POST", cms,
       "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + huge + "\"}}",
       "application/json", 413, "RequestEntityTooLarge"},
      {"POST", "/apis/karpenter.sh/v1/nodepools", api::dumpJson(badNodePool), "application/json",
       422, "Invalid"},
      {"PATCH", cms + "/bad-input-target", "[{\"op\":\"remove\",\"path\":\"/data/missing\"}]",
       "application/json-patch+json", 422, "Invalid"},
      {"PATCH", cms + "/bad-input-target", "{\"data\":{\"x\":\"y\"}}", "application/x-unknown", 415,
       "UnsupportedMediaType"},
      {"PATCH", "/apis/karpenter.sh/v1/nodepools/none", "{}",
       "application/strategic-merge-patch+json", 404, "NotFound"},
  };
  ASSERT_EQ(client->send("POST", cms, api::dumpJson(good))->status, 201);
  auto before = client->send("GET", cms + "/bad-input-target");
  for (const auto& c : cases) {
    auto response = client->send(c.method, c.path, c.body, c.contentType);
    if (!response) {
      // A 413 may close the connection; the next request reconnects.
      ADD_FAILURE() << c.method << " " << c.path << ": " << response.error().message();
      continue;
    }
    EXPECT_EQ(response->status, c.code) << c.method << " " << c.path << ": " << response->body;
    Json status = Json::parse(response->body, nullptr, false);
    ASSERT_TRUE(status.is_object()) << response->body;
    EXPECT_EQ(status["kind"], "Status");
    EXPECT_EQ(status["reason"], c.reason) << response->body;
  }
  auto invalid =
      client->send("POST", "/apis/karpenter.sh/v1/nodepools", api::dumpJson(badNodePool));
  Json causes = parse(*invalid)["details"]["causes"];
  ASSERT_FALSE(causes.empty());
  std::set<std::string> fields;
  for (const auto& cause : causes) {
    fields.insert(cause["field"]);
  }
  EXPECT_TRUE(fields.count("spec.weight")) << invalid->body;

  // Nothing partial was stored, the untouched object is unchanged, and the server still serves.
  auto list = parse(*client->send("GET", cms));
  for (const auto& item : list["items"]) {
    EXPECT_NE(item["metadata"]["name"], "unknown-field");
  }
  EXPECT_EQ(client->send("GET", cms + "/bad-input-target")->body, before->body);
  EXPECT_EQ(client->send("GET", "/apis/karpenter.sh/v1/nodepools/bad")->status, 404);
  EXPECT_EQ(client->send("GET", "/version")->status, 200);
}

TEST_F(ApiServerProtocol, UnknownFieldsWarnByDefault) {
  auto client = server_->client();
  Json object = testing::configMap("default", "warned");
  object["extra"] = 1;
  auto response =
      client->send("POST", "/api/v1/namespaces/default/configmaps", api::dumpJson(object));
  ASSERT_EQ(response->status, 201) << response->body;
  bool warned = false;
  for (const auto& [name, value] : response->headers) {
    if (name == "Warning" && value.find("unknown field \\\"extra\\\"") != std::string::npos) {
      warned = true;
    }
  }
  EXPECT_TRUE(warned);
  EXPECT_FALSE(parse(*response).contains("extra"));
}

TEST_F(ApiServerProtocol, ListPagesWithLimitAndContinue) {
  auto client = server_->client();
  ASSERT_EQ(client
                ->send("POST", "/api/v1/namespaces",
                       R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"pages"}})")
                ->status,
            201);
  for (int i = 0; i < 25; ++i) {
    auto r = client->send("POST", "/api/v1/namespaces/pages/configmaps",
                          api::dumpJson(testing::configMap("pages", "cm-" + std::to_string(i))));
    ASSERT_EQ(r->status, 201);
  }
  std::set<std::string> seen;
  std::string token;
  int pages = 0;
  do {
    std::string path = "/api/v1/namespaces/pages/configmaps?limit=10";
    if (!token.empty()) {
      path += "&continue=" + token;
    }
    Json page = parse(*client->send("GET", path));
    ++pages;
    for (const auto& item : page["items"]) {
      EXPECT_TRUE(seen.insert(item["metadata"]["name"]).second);
    }
    token = page["metadata"].value("continue", "");
  } while (!token.empty() && pages < 10);
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(seen.size(), 25u);
  EXPECT_EQ(client->send("GET", "/api/v1/namespaces/pages/configmaps?continue=garbage")->status,
            400);
}

TEST_F(ApiServerProtocol, WatchResumesFromAResourceVersionAndExpiresWhenTooOld) {
  auto client = server_->client();
  const std::string cms = "/api/v1/namespaces/default/configmaps";
  Json first =
      parse(*client->send("POST", cms, api::dumpJson(testing::configMap("default", "w-0"))));
  const std::string firstRv = first["metadata"]["resourceVersion"];
  ASSERT_EQ(client->send("POST", cms, api::dumpJson(testing::configMap("default", "w-1")))->status,
            201);
  ASSERT_EQ(client->send("DELETE", cms + "/w-0")->status, 200);

  std::vector<Json> events;
  auto watcher = server_->client();
  ASSERT_TRUE(
      watcher->stream(cms + "?watch=true&resourceVersion=" + firstRv, [&](std::string_view line) {
        events.push_back(Json::parse(line));
        return events.size() < 2;
      }));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["type"], "ADDED");
  EXPECT_EQ(events[0]["object"]["metadata"]["name"], "w-1");
  EXPECT_EQ(events[1]["type"], "DELETED");
  EXPECT_EQ(events[1]["object"]["metadata"]["name"], "w-0");

  // The history holds 20 events; push the first one out of it.
  for (int i = 0; i < 30; ++i) {
    ASSERT_EQ(client
                  ->send("POST", cms,
                         api::dumpJson(testing::configMap("default", "fill-" + std::to_string(i))))
                  ->status,
              201);
  }
  Json expired;
  ASSERT_TRUE(
      watcher->stream(cms + "?watch=true&resourceVersion=" + firstRv, [&](std::string_view line) {
        expired = Json::parse(line);
        return false;
      }));
  EXPECT_EQ(expired["type"], "ERROR");
  EXPECT_EQ(expired["object"]["code"], 410);
  EXPECT_EQ(expired["object"]["reason"], "Expired");
}

TEST_F(ApiServerProtocol, WatchSendsBookmarksWhenAllowed) {
  auto client = server_->client();
  Json list = parse(*client->send("GET", "/api/v1/namespaces/default/secrets"));
  std::string rv = list["metadata"]["resourceVersion"];
  Json bookmark;
  ASSERT_TRUE(
      client->stream("/api/v1/namespaces/default/secrets?watch=1&allowWatchBookmarks=true"
                     "&resourceVersion=" +
                         rv,
                     [&](std::string_view line) {
                       bookmark = Json::parse(line);
                       return false;
                     }));
  EXPECT_EQ(bookmark["type"], "BOOKMARK");
  EXPECT_EQ(bookmark["object"]["kind"], "Secret");
  EXPECT_GE(std::stoll(bookmark["object"]["metadata"]["resourceVersion"].get<std::string>()),
            std::stoll(rv));
}

}  // namespace
}  // namespace nodewright::apiserver
