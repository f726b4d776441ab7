// What the emulator keeps and for how long: finished operations for a day of emulated time and
// at most a configured number, PUT counts while they can matter, and throttling buckets while
// they are not full. A long run must not grow without bound.
#include <gtest/gtest.h>

#include "core/text.h"
#include "emulators/arm/arm_fixture.h"
#include "emulators/arm/rate_limits.h"

namespace nodewright::emulators::arm {
namespace {

using namespace std::chrono_literals;
using testing::ArmFixture;
using testing::HttpsReply;

// A thousand times faster: a day of emulated time is 86.4 s.
class ArmRetentionTest : public ArmFixture {
 protected:
  ArmEmulatorOptions options() override {
    ArmEmulatorOptions o = ArmFixture::options();
    o.engine.timeScale = 1000;
    o.maxRetainedOperations = 5;
    return o;
  }
  HttpsReply putIp(std::string_view name) {
    return call("PUT", network("publicIPAddresses/" + std::string(name)),
                {{"location", "eastus"}, {"sku", {{"name", "Standard"}}}});
  }
};

TEST_F(ArmRetentionTest, FinishedOperationsLastADayOfEmulatedTime) {
  ASSERT_EQ(call("PUT", group(), {{"location", "eastus"}}).status, 201);
  HttpsReply put = putIp("ip");
  ASSERT_EQ(put.status, 201);
  advance(1s);
  EXPECT_EQ(operationStatus(put), "Succeeded");
  advance(85s);
  EXPECT_EQ(follow(put.header("azure-asyncoperation")).status, 200);
  advance(1s);
  HttpsReply gone = follow(put.header("azure-asyncoperation"));
  EXPECT_EQ(gone.status, 404);
  EXPECT_EQ(gone.code(), "OperationNotFound");
}

TEST_F(ArmRetentionTest, OnlyTheNewestFinishedOperationsAreKept) {
  ASSERT_EQ(call("PUT", group(), {{"location", "eastus"}}).status, 201);
  std::vector<HttpsReply> puts;
  for (int i = 0; i < 8; ++i) {
    puts.push_back(putIp("ip-" + std::to_string(i)));
    ASSERT_EQ(puts.back().status, 201);
    advance(1s);
  }
  EXPECT_EQ(follow(puts.front().header("azure-asyncoperation")).status, 404);
  EXPECT_EQ(operationStatus(puts.back()), "Succeeded");
  EXPECT_EQ(server_->emulator().engine().store().list(std::string(kOperationTable)).size(), 5u);
  // Running operations are never forgotten, however many there are.
  for (int i = 0; i < 8; ++i) {
    ASSERT_EQ(putIp("ip-" + std::to_string(i)).status, 200);
  }
  EXPECT_EQ(server_->emulator().model().operationsInFlight(), 8u);
}

TEST_F(ArmRetentionTest, PutCountsOutliveTheirResourceByTheRetention) {
  ASSERT_EQ(call("PUT", group(), {{"location", "eastus"}}).status, 201);
  const std::string ip = network("publicIPAddresses/ip");
  ASSERT_EQ(putIp("ip").status, 201);
  advance(1s);
  ASSERT_EQ(call("DELETE", ip).status, 202);
  advance(1s);
  ASSERT_EQ(call("GET", ip).status, 404);
  EXPECT_EQ(server_->emulator().stats()["puts"][core::lowerAscii(ip)], 1);
  advance(87s);
  api::Json puts = server_->emulator().stats()["puts"];
  EXPECT_FALSE(puts.contains(core::lowerAscii(ip))) << puts.dump();
  EXPECT_EQ(puts[core::lowerAscii(group())], 1);
}

TEST(ArmRateLimitsTest, RefilledBucketsOfPastPrincipalsAreForgotten) {
  core::FakeClock clock;
  ArmRateLimits limits(clock);
  for (int i = 0; i < 1500; ++i) {
    ASSERT_TRUE(limits.take(RequestClass::Reads, "sub", "p" + std::to_string(i), true).allowed);
  }
  EXPECT_EQ(limits.bucketCount(), 1500u);
  clock.advance(1s);  // 25 reads a second: full again
  for (int i = 0; i < 600; ++i) {
    ASSERT_TRUE(limits.take(RequestClass::Reads, "sub", "q" + std::to_string(i), true).allowed);
  }
  EXPECT_EQ(limits.bucketCount(), 600u);
  EXPECT_EQ(limits.take(RequestClass::Reads, "sub", "p0", true).remaining, 249);
}

TEST(ArmRateLimitsTest, RefillsInEmulatedTime) {
  core::FakeClock clock;
  ArmRateLimits limits(clock, 10);  // ten emulated seconds pass in one real second
  for (int i = 0; i < 200; ++i) {
    ASSERT_TRUE(limits.take(RequestClass::Writes, "sub", "p", true).allowed) << i;
  }
  const Admission refused = limits.take(RequestClass::Writes, "sub", "p", true);
  ASSERT_FALSE(refused.allowed);
  // Ten writes an emulated second: the next token is 100 ms of emulated time away, 10 ms real.
  EXPECT_EQ(refused.retryAfter, std::chrono::microseconds(10000));
  clock.advance(100ms);
  for (int i = 0; i < 10; ++i) {
    EXPECT_TRUE(limits.take(RequestClass::Writes, "sub", "p", true).allowed) << i;
  }
  EXPECT_FALSE(limits.take(RequestClass::Writes, "sub", "p", true).allowed);
}

}  // namespace
}  // namespace nodewright::emulators::arm
