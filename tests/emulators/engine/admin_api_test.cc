#include "emulators/engine/admin_api.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "emulators/engine/faults.h"
#include "emulators/engine/resource_store.h"
#include "emulators/engine/stats.h"

namespace nodewright::emulators {
namespace {

struct Reply {
  int status = 0;
  std::string body;
};

// One HTTP/1.1 request over a loopback socket, read to the end (Connection: close), as any
// client would speak to the emulator.
core::Result<Reply> fetch(uint16_t port, const std::string& method, const std::string& target,
                          const std::string& body = "") {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) {
    return core::fail(core::Error::internal("socket failed"));
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return core::fail(core::Error::internal("connect failed"));
  }
  std::string request = method + " " + target +
                        " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                        "Content-Type: application/json\r\nContent-Length: " +
                        std::to_string(body.size()) + "\r\n\r\n" + body;
  for (size_t sent = 0; sent < request.size();) {
    const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, 0);
    if (n <= 0) {
      ::close(fd);
      return core::fail(core::Error::internal("send failed"));
    }
    sent += static_cast<size_t>(n);
  }
  std::string raw;
  char buffer[4096];
  for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) {
    raw.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  const size_t headersEnd = raw.find("\r\n\r\n");
  if (!raw.starts_with("HTTP/1.1 ") || headersEnd == std::string::npos) {
    return core::fail(core::Error::internal("not an HTTP response: " + raw));
  }
  return Reply{std::stoi(raw.substr(9, 3)), raw.substr(headersEnd + 4)};
}

class AdminApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = http::startServer({}, [this](const http::Request& r, http::Exchange& x) {
      if (!admin_.handle(r, x)) {
        x.respond({.status = 418, .contentType = "text/plain", .body = "cloud", .headers = {}});
      }
    });
    ASSERT_TRUE(server) << server.error().message();
    server_ = std::move(*server);
  }
  void TearDown() override {
    if (server_) {
      server_->stop();
    }
  }

  api::Json getJson(const std::string& target) {
    auto reply = fetch(server_->port(), "GET", target);
    EXPECT_TRUE(reply) << reply.error().message();
    EXPECT_EQ(reply->status, 200) << reply->body;
    return api::Json::parse(reply->body);
  }

  core::FakeClock clock_;
  ResourceStore store_{clock_, 1};
  Faults faults_;
  Stats stats_;
  AdminApi admin_{faults_, stats_, store_};
  std::unique_ptr<http::Server> server_;
};

TEST_F(AdminApiTest, PutFaultsThenGetThemBack) {
  const std::string body = R"({"seed": 3, "errors": {"RunInstances": [{"code": "InternalError",
      "probability": 0.25}]}, "capacity": [{"instanceType": "m5.large", "zone": "us-east-1a",
      "capacityType": "spot", "remaining": 2}], "latencies": {"op": {"min": "1s", "max": "2s"}},
      "throttling": false})";
  auto put = fetch(server_->port(), "PUT", "/admin/faults", body);
  ASSERT_TRUE(put) << put.error().message();
  ASSERT_EQ(put->status, 200) << put->body;
  EXPECT_EQ(api::Json::parse(put->body), getJson("/admin/faults"));
  EXPECT_FALSE(faults_.throttling());
  EXPECT_EQ(faults_.config().errors.at("RunInstances")[0].probability, 0.25);

  // The live remaining count shows after launches use it.
  EXPECT_EQ(faults_.takeCapacity({"m5.large", "us-east-1a", "spot"}, 1), 1);
  EXPECT_EQ(getJson("/admin/faults")["capacity"][0]["remaining"], 1);

  auto post = fetch(server_->port(), "POST", "/admin/faults", R"({"throttling": true})");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 200);
  EXPECT_TRUE(faults_.throttling());
  EXPECT_TRUE(faults_.config().capacity.empty());  // replaced whole, not merged
}

TEST_F(AdminApiTest, BadFaultsGet400WithTheFieldPathAndTheOldConfigStays) {
  ASSERT_EQ(fetch(server_->port(), "PUT", "/admin/faults", R"({"throttling": false})")->status,
            200);
  auto bad = fetch(server_->port(), "PUT", "/admin/faults",
                   R"({"throttling": true, "errors": {"RunInstances": [{"code": "X",
                       "probability": 2}]}})");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_EQ(api::Json::parse(bad->body)["message"],
            "errors.RunInstances[0].probability: Invalid value: 2: must be from 0 to 1");
  EXPECT_FALSE(faults_.throttling());

  auto notJson = fetch(server_->port(), "PUT", "/admin/faults", "throttling: [");
  ASSERT_TRUE(notJson);
  EXPECT_EQ(notJson->status, 400);
  EXPECT_EQ(api::Json::parse(notJson->body)["message"], "body: not valid JSON");
  EXPECT_FALSE(faults_.throttling());
}

TEST_F(AdminApiTest, StatsShowRequestsCreatesAndLiveResources) {
  NewResource instance;
  instance.type = "instance";
  instance.idPrefix = "i";
  instance.state = "pending";
  instance.clientToken = "fleet-token";
  ASSERT_TRUE(store_.create(instance));
  stats_.recordRequest("CreateFleet");
  stats_.recordRequest("CreateFleet", "InsufficientInstanceCapacity");
  stats_.recordCreate("fleet-token");

  api::Json stats = getJson("/admin/stats");
  EXPECT_EQ(stats["requests"]["CreateFleet"]["count"], 2);
  EXPECT_EQ(stats["requests"]["CreateFleet"]["errors"]["InsufficientInstanceCapacity"], 1);
  EXPECT_EQ(stats["createsByClientToken"]["fleet-token"], 1);
  EXPECT_EQ(stats["duplicateClientTokens"], api::Json::array());
  EXPECT_EQ(stats["live"]["instance"], 1);
}

TEST_F(AdminApiTest, LeavesOtherPathsToTheCloudAndRejectsUnknownAdminOnes) {
  auto cloud = fetch(server_->port(), "POST", "/", "Action=RunInstances");
  ASSERT_TRUE(cloud);
  EXPECT_EQ(cloud->status, 418);
  EXPECT_EQ(fetch(server_->port(), "GET", "/administrator")->status, 418);
  EXPECT_EQ(fetch(server_->port(), "GET", "/admin/nothing")->status, 404);
  EXPECT_EQ(fetch(server_->port(), "DELETE", "/admin/faults")->status, 405);
  EXPECT_EQ(fetch(server_->port(), "POST", "/admin/stats")->status, 405);
  EXPECT_EQ(fetch(server_->port(), "GET", "/admin/stats/")->status, 200);
}

}  // namespace
}  // namespace nodewright::emulators
