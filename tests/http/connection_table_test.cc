// The connection table on a fake clock: which connection makes room at the cap, and that a
// passed deadline shuts the socket down (which is what ends a blocked read in the server).

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "http/connection_table.h"
#include "support/http/raw_connection.h"

namespace nodewright::http {
namespace {

using namespace std::chrono_literals;

// A connected socket pair: the table owns `server`, the test watches `client`.
struct Pair {
  Pair() {
    int fds[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    server = fds[0];
    client = fds[1];
  }
  ~Pair() {
    ::close(server);
    ::close(client);
  }
  // True once the server side was shut down (the client reads end-of-file).
  bool shutDown() const {
    pollfd p{client, POLLIN, 0};
    char byte;
    return ::poll(&p, 1, 0) == 1 && ::recv(client, &byte, 1, MSG_DONTWAIT) == 0;
  }
  int server = -1;
  int client = -1;
};

class ConnectionTableTest : public ::testing::Test {
 protected:
  core::FakeClock clock_;
};

TEST_F(ConnectionTableTest, AtTheCapTheLongestIdleConnectionMakesRoom) {
  ConnectionTable table(clock_, 2);
  Pair older, newer, busy, arriving;
  auto a = table.admit(older.server, Phase::Idle, 0ms);
  clock_.advance(1s);
  auto b = table.admit(newer.server, Phase::Idle, 0ms);
  ASSERT_TRUE(a && b);
  auto c = table.admit(busy.server, Phase::Idle, 0ms);
  ASSERT_TRUE(c);
  EXPECT_TRUE(older.shutDown());
  EXPECT_FALSE(newer.shutDown());
  EXPECT_FALSE(table.enter(a, Phase::Header, 0ms));  // its thread learns it is done
  EXPECT_EQ(table.open(), 2u);
  // Connections serving a request are never closed to make room: the newcomer is refused.
  ASSERT_TRUE(table.enter(b, Phase::Busy, 0ms));
  ASSERT_TRUE(table.enter(c, Phase::Body, 0ms));
  EXPECT_EQ(table.admit(arriving.server, Phase::Idle, 0ms), nullptr);
  EXPECT_FALSE(newer.shutDown());
  EXPECT_FALSE(busy.shutDown());
  table.release(a);
  table.release(b);
  EXPECT_EQ(table.open(), 1u);
}

TEST_F(ConnectionTableTest, APassedDeadlineShutsTheConnectionDown) {
  ConnectionTable table(clock_, 8);
  Pair slow, patient;
  auto s = table.admit(slow.server, Phase::Header, 5s);
  auto p = table.admit(patient.server, Phase::Busy, 0ms);
  clock_.advance(4s);
  EXPECT_FALSE(slow.shutDown());
  clock_.advance(2s);
  EXPECT_TRUE(testing::eventually([&] { return slow.shutDown(); }, 5s));
  EXPECT_FALSE(patient.shutDown());
  EXPECT_FALSE(table.enter(s, Phase::Body, 1s));
  EXPECT_EQ(table.open(), 1u);
  // A new phase sets a new deadline from now.
  ASSERT_TRUE(table.enter(p, Phase::Idle, 1s));
  clock_.advance(2s);
  EXPECT_TRUE(testing::eventually([&] { return patient.shutDown(); }, 5s));
}

TEST_F(ConnectionTableTest, ShutdownAllClosesEverythingAndRefusesNewcomers) {
  ConnectionTable table(clock_, 8);
  Pair one, two;
  auto slot = table.admit(one.server, Phase::Busy, 0ms);
  ASSERT_TRUE(slot);
  table.shutdownAll();
  EXPECT_TRUE(one.shutDown());
  EXPECT_EQ(table.admit(two.server, Phase::Idle, 0ms), nullptr);
  EXPECT_EQ(table.open(), 0u);
}

}  // namespace
}  // namespace nodewright::http
