// The request log: what each request path is recorded as, the line format, and the lines real
// clients (kubectl, the test HTTP client) leave while the server runs.

#include <csignal>
#include <fstream>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/reflect/json.h"
#include "apiserver/request_log.h"
#include "support/apiserver/process.h"
#include "support/apiserver/test_server.h"

namespace nodewright::apiserver {
namespace {

using api::Json;
using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

struct PathCase {
  std::string label;
  std::string method;
  std::string path;
  std::multimap<std::string, std::string> query;
  // verb, apiGroup, apiVersion, resource, subresource, namespace, name, path
  std::vector<std::string> expected;
};

void PrintTo(const PathCase& c, std::ostream* os) {
  *os << c.method << " " << c.path;
}

class DescribeRequestTest : public ::testing::TestWithParam<PathCase> {};

TEST_P(DescribeRequestTest, ReadsVerbAndResourceFromThePath) {
  const PathCase& c = GetParam();
  http::Request request;
  request.method = c.method;
  request.path = c.path;
  request.query = c.query;
  RequestRecord r = describeRequest(request);
  EXPECT_EQ((std::vector<std::string>{r.verb, r.apiGroup, r.apiVersion, r.resource, r.subresource,
                                      r.ns, r.name, r.path}),
            c.expected);
  EXPECT_EQ(r.resourceRequest, r.path.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Paths, DescribeRequestTest,
    ::testing::Values(
        PathCase{"ListPods",
                 "GET",
                 "/api/v1/namespaces/x/pods",
                 {},
                 {"list", "", "v1", "pods", "", "x", "", ""}},
        PathCase{"WatchParam",
                 "GET",
                 "/api/v1/namespaces/x/pods",
                 {{"watch", "1"}},
                 {"watch", "", "v1", "pods", "", "x", "", ""}},
        PathCase{"WatchTrue",
                 "GET",
                 "/apis/karpenter.sh/v1/nodeclaims",
                 {{"watch", "true"}},
                 {"watch", "karpenter.sh", "v1", "nodeclaims", "", "", "", ""}},
        PathCase{"WatchPath",
                 "GET",
                 "/api/v1/watch/namespaces/x/pods",
                 {},
                 {"watch", "", "v1", "pods", "", "x", "", ""}},
        PathCase{"GetPod",
                 "GET",
                 "/api/v1/namespaces/x/pods/p",
                 {},
                 {"get", "", "v1", "pods", "", "x", "p", ""}},
        PathCase{"StatusUpdate",
                 "PUT",
                 "/api/v1/namespaces/x/pods/p/status",
                 {},
                 {"update", "", "v1", "pods", "status", "x", "p", ""}},
        PathCase{"Eviction",
                 "POST",
                 "/api/v1/namespaces/x/pods/p/eviction",
                 {},
                 {"create", "", "v1", "pods", "eviction", "x", "p", ""}},
        PathCase{"Binding",
                 "POST",
                 "/api/v1/namespaces/x/pods/p/binding",
                 {},
                 {"create", "", "v1", "pods", "binding", "x", "p", ""}},
        PathCase{"Scale",
                 "PATCH",
                 "/apis/apps/v1/namespaces/x/deployments/d/scale",
                 {},
                 {"patch", "apps", "v1", "deployments", "scale", "x", "d", ""}},
        PathCase{"DeleteCollection",
                 "DELETE",
                 "/api/v1/namespaces/x/configmaps",
                 {},
                 {"deletecollection", "", "v1", "configmaps", "", "x", "", ""}},
        PathCase{"ClusterScopedDelete",
                 "DELETE",
                 "/apis/karpenter.sh/v1/nodepools/a",
                 {},
                 {"delete", "karpenter.sh", "v1", "nodepools", "", "", "a", ""}},
        PathCase{"Create",
                 "POST",
                 "/apis/rbac.authorization.k8s.io/v1/clusterroles",
                 {},
                 {"create", "rbac.authorization.k8s.io", "v1", "clusterroles", "", "", "", ""}},
        PathCase{"Namespace",
                 "GET",
                 "/api/v1/namespaces/x",
                 {},
                 {"get", "", "v1", "namespaces", "", "x", "x", ""}},
        PathCase{"NamespaceFinalize",
                 "PUT",
                 "/api/v1/namespaces/x/finalize",
                 {},
                 {"update", "", "v1", "namespaces", "finalize", "x", "x", ""}},
        PathCase{"CoreDiscovery", "GET", "/api", {}, {"get", "", "", "", "", "", "", "/api"}},
        PathCase{"GroupDiscovery",
                 "GET",
                 "/apis/apps/v1",
                 {},
                 {"get", "", "", "", "", "", "", "/apis/apps/v1"}},
        PathCase{"OpenApi",
                 "GET",
                 "/openapi/v3/apis/apps/v1",
                 {},
                 {"get", "", "", "", "", "", "", "/openapi/v3/apis/apps/v1"}},
        PathCase{"Version", "GET", "/version", {}, {"get", "", "", "", "", "", "", "/version"}},
        PathCase{"Health", "GET", "/healthz", {}, {"get", "", "", "", "", "", "", "/healthz"}}),
    [](const auto& info) { return info.param.label; });

TEST(RequestLogFormatTest, WritesOneJsonObjectWithMillisecondTime) {
  RequestRecord r;
  r.verb = "create";
  r.resourceRequest = true;
  r.apiVersion = "v1";
  r.resource = "pods";
  r.subresource = "eviction";
  r.ns = "shop";
  r.name = "web-0";
  r.userAgent = "kubectl/v1.32.4 (linux/amd64)";
  r.code = 429;
  r.dryRun = true;
  core::TimePoint time{std::chrono::microseconds(1700000000123456)};
  EXPECT_EQ(formatRecord(r, time),
            R"x({"time":"2023-11-14T22:13:20.123Z","verb":"create","apiGroup":"",)x"
            R"x("apiVersion":"v1","resource":"pods","subresource":"eviction",)x"
            R"x("namespace":"shop","name":"web-0","userAgent":"kubectl/v1.32.4 (linux/amd64)",)x"
            R"x("code":429,"dryRun":true})x");
}

TEST(RequestLogFormatTest, NonResourceRequestsCarryTheirPath) {
  http::Request request;
  request.method = "GET";
  request.path = "/openapi/v2";
  request.headers = {{"user-agent", "kubectl"}, {"authorization", "Bearer secret-token"}};
  RequestRecord r = describeRequest(request);
  r.code = 200;
  Json line = Json::parse(formatRecord(r, core::TimePoint{}));
  EXPECT_EQ(line["path"], "/openapi/v2");
  EXPECT_EQ(line["resource"], "");
  EXPECT_EQ(line["verb"], "get");
  EXPECT_EQ(line["userAgent"], "kubectl");
  EXPECT_THAT(line.dump(), Not(HasSubstr("secret-token")));
}

// A server logging its requests, and the lines it wrote so far.
class RequestLogServerTest : public ::testing::Test {
 protected:
  RequestLogServerTest() : logPath_((logDir_.path() / "requests.jsonl").string()) {
    ApiServerOptions options;
    options.fsync = false;
    options.requestLog = logPath_;
    server_ = std::make_unique<testing::TestApiServer>(options);
  }

  std::vector<Json> lines() const {
    std::vector<Json> out;
    std::ifstream in(logPath_);
    std::string line;
    while (std::getline(in, line)) {
      Json parsed = Json::parse(line, nullptr, false);
      EXPECT_FALSE(parsed.is_discarded()) << line;
      out.push_back(parsed);
    }
    return out;
  }

  // The lines whose fields include every field of `want`.
  std::vector<Json> matching(const Json& want) const {
    std::vector<Json> out;
    for (const Json& line : lines()) {
      bool all = true;
      for (const auto& [key, value] : want.items()) {
        all = all && line.contains(key) && line[key] == value;
      }
      if (all) {
        out.push_back(line);
      }
    }
    return out;
  }

  // The matching lines once there are at least `count`, or what matched after 10 s: lines are
  // written from the server's connection threads as requests are answered.
  std::vector<Json> awaitMatching(const Json& want, size_t count = 1) const {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    std::vector<Json> found = matching(want);
    while (found.size() < count && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(2ms);
      found = matching(want);
    }
    return found;
  }

  testing::TempDir logDir_;
  std::string logPath_;
  std::unique_ptr<testing::TestApiServer> server_;
};

TEST_F(RequestLogServerTest, KubectlRequestsAreLoggedWithItsUserAgent) {
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "web-0"}, {"namespace", "default"}}},
              {"spec", {{"containers", {{{"name", "web"}, {"image", "nginx"}}}}}}};
  ASSERT_EQ(testing::kubectl(*server_, {"create", "--dry-run=server", "-f", "-"}, pod.dump()).code,
            0);
  testing::Ran listed = testing::kubectl(*server_, {"get", "pods", "-n", "default"});
  ASSERT_EQ(listed.code, 0) << listed.err;

  auto list = awaitMatching({{"verb", "list"}, {"resource", "pods"}, {"namespace", "default"}});
  ASSERT_EQ(list.size(), 1u);
  EXPECT_THAT(list[0]["userAgent"].get<std::string>(), StartsWith("kubectl/"));
  EXPECT_EQ(list[0]["code"], 200);
  EXPECT_EQ(list[0]["apiGroup"], "");
  EXPECT_EQ(list[0]["apiVersion"], "v1");
  EXPECT_EQ(list[0]["dryRun"], false);
  EXPECT_THAT(list[0]["time"].get<std::string>(),
              ::testing::MatchesRegex("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\\.[0-9]{3}Z"));

  auto created = awaitMatching({{"verb", "create"}, {"resource", "pods"}});
  ASSERT_EQ(created.size(), 1u);
  EXPECT_EQ(created[0]["dryRun"], true);
  EXPECT_EQ(created[0]["code"], 201);
  // kubectl discovers the API first: non-resource reads, with their paths.
  EXPECT_FALSE(awaitMatching({{"verb", "get"}, {"path", "/api"}, {"resource", ""}}).empty());
  EXPECT_THAT(testing::readFile(logPath_), Not(HasSubstr(server_->token())));
}

TEST_F(RequestLogServerTest, SubresourcesWatchesAndFailuresAreLogged) {
  auto client = server_->client();
  const std::string pods = "/api/v1/namespaces/default/pods";
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "db-0"}}},
              {"spec", {{"containers", {{{"name", "db"}, {"image", "postgres"}}}}}}};
  ASSERT_EQ(client->send("POST", pods, api::dumpJson(pod))->status, 201);
  Json current = Json::parse(client->send("GET", pods + "/db-0")->body);
  current["status"] = {{"phase", "Running"}};
  auto updated = client->send("PUT", pods + "/db-0/status", api::dumpJson(current));
  ASSERT_EQ(updated->status, 200) << updated->body;
  Json eviction = {{"apiVersion", "policy/v1"},
                   {"kind", "Eviction"},
                   {"metadata", {{"name", "db-0"}, {"namespace", "default"}}}};
  ASSERT_EQ(client->send("POST", pods + "/db-0/eviction", api::dumpJson(eviction))->status, 201);
  EXPECT_EQ(client->send("GET", pods + "/missing")->status, 404);

  // Watches are logged as they start, in both URL forms.
  ASSERT_EQ(client
                ->send("POST", "/api/v1/namespaces/default/configmaps",
                       R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}})")
                ->status,
            201);
  size_t watches = 0;
  for (std::string target : {"/api/v1/namespaces/default/configmaps?watch=1",
                             "/api/v1/watch/namespaces/default/configmaps"}) {
    const size_t watchesSoFar = watches++;
    size_t seenWhileWatching = 0;
    auto watcher = server_->client();
    EXPECT_TRUE(watcher->stream(target, [&](std::string_view) {
      seenWhileWatching =
          awaitMatching({{"verb", "watch"}, {"resource", "configmaps"}}, watchesSoFar + 1).size();
      return false;
    }));
    EXPECT_EQ(seenWhileWatching, watchesSoFar + 1) << target;
  }
  EXPECT_EQ(awaitMatching({{"verb", "watch"}, {"namespace", "default"}, {"code", 200}}, 2).size(),
            2u);

  EXPECT_EQ(awaitMatching({{"verb", "update"},
                           {"resource", "pods"},
                           {"subresource", "status"},
                           {"namespace", "default"},
                           {"name", "db-0"},
                           {"code", 200}})
                .size(),
            1u);
  EXPECT_EQ(awaitMatching({{"verb", "create"},
                           {"resource", "pods"},
                           {"subresource", "eviction"},
                           {"name", "db-0"},
                           {"code", 201}})
                .size(),
            1u);
  EXPECT_EQ(awaitMatching({{"verb", "get"}, {"name", "missing"}, {"code", 404}}).size(), 1u);
}

TEST_F(RequestLogServerTest, UnauthenticatedRequestsAreLoggedWithoutTokens) {
  http::ClientOptions options;
  options.port = server_->port();
  options.caPem = server_->caPem();
  options.token = "not-the-token";
  auto client = http::connectClient(options);
  ASSERT_TRUE(client);
  EXPECT_EQ((*client)->send("GET", "/api/v1/nodes")->status, 401);
  EXPECT_EQ(awaitMatching({{"verb", "list"}, {"resource", "nodes"}, {"code", 401}}).size(), 1u);
  EXPECT_THAT(testing::readFile(logPath_), Not(HasSubstr("not-the-token")));
}

TEST(ApiServerCommandRequestLog, FlagWritesTheLogOfTheBinary) {
  testing::TempDir dir;
  const std::string dataDir = (dir.path() / "data").string();
  const std::string log = (dir.path() / "requests.jsonl").string();
  testing::Child child({NW_BINARY, "apiserver", "--data-dir", dataDir, "--listen", "127.0.0.1:0",
                        "--request-log", log});
  std::string line = child.waitForLine("listening on https://127.0.0.1:", 60s);
  ASSERT_FALSE(line.empty()) << "the server did not start";
  http::ClientOptions options;
  options.port = static_cast<uint16_t>(std::stoi(line.substr(line.rfind(':') + 1)));
  options.caPem = testing::readFile(dataDir + "/pki/ca.crt");
  options.token = testing::readFile(dataDir + "/pki/token");
  auto client = http::connectClient(options);
  ASSERT_TRUE(client);
  EXPECT_EQ((*client)->send("GET", "/apis/karpenter.sh/v1/nodepools/absent")->status, 404);
  // The server's connection thread writes the line; wait for it (at most 10 s).
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  std::string text = testing::readFile(log);
  while (text.empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(2ms);
    text = testing::readFile(log);
  }
  EXPECT_THAT(text, HasSubstr(R"("verb":"get","apiGroup":"karpenter.sh","apiVersion":"v1",)"
                              R"("resource":"nodepools","subresource":"","namespace":"",)"
                              R"("name":"absent","userAgent":"","code":404,"dryRun":false})"));
  child.kill(SIGTERM);
  EXPECT_EQ(child.wait(10s), 0);
}

}  // namespace
}  // namespace nodewright::apiserver
