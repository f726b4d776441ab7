#include <gtest/gtest.h>

#include "cmd/cmd_test_util.h"
#include "cmd/listen_address.h"

namespace nodewright::cmd {
namespace {

using testing::runCmd;

TEST(ListenAddressTest, AcceptsLoopbackHostsAndPorts) {
  auto v4 = parseListenAddress("127.0.0.1:6443");
  ASSERT_TRUE(v4);
  EXPECT_EQ(v4->host, "127.0.0.1");
  EXPECT_EQ(v4->port, 6443);
  auto v6 = parseListenAddress("[::1]:0");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 0);
  EXPECT_EQ(parseListenAddress("localhost:1")->host, "127.0.0.1");
}

TEST(ListenAddressTest, RefusesOtherHostsAndBadPorts) {
  for (const char* bad :
       {"0.0.0.0:6443", "10.0.0.1:80", "127.0.0.1", "127.0.0.1:70000", "127.0.0.1:http", ":6443"}) {
    auto parsed = parseListenAddress(bad);
    ASSERT_FALSE(parsed) << bad;
    EXPECT_NE(parsed.error().message().find("--listen: "), std::string::npos) << bad;
  }
}

TEST(ApiServerCommandTest, RefusesANonLoopbackListenAddress) {
  auto r = runCmd({"apiserver", "--data-dir", "/tmp/never-created", "--listen", "0.0.0.0:6443"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("only loopback addresses"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace nodewright::cmd
