#include "controllers/provisioning/batcher.h"

#include <gtest/gtest.h>

namespace nodewright::controllers::provisioning {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class BatcherTest : public ::testing::Test {
 protected:
  core::FakeClock clock_;
  Batcher batcher_{clock_, BatchWindows{milliseconds(1000), milliseconds(10000)}};
};

TEST_F(BatcherTest, NothingWaitsBeforeAnyTrigger) {
  EXPECT_FALSE(batcher_.untilClosed().has_value());
}

TEST_F(BatcherTest, ClosesAfterTheIdleWindowWithoutNewPods) {
  batcher_.trigger();
  EXPECT_EQ(batcher_.untilClosed(), milliseconds(1000));
  clock_.advance(milliseconds(400));
  EXPECT_EQ(batcher_.untilClosed(), milliseconds(600));
  clock_.advance(milliseconds(600));
  EXPECT_EQ(batcher_.untilClosed(), milliseconds(0));
}

TEST_F(BatcherTest, EachNewPodExtendsTheIdleWindow) {
  batcher_.trigger();
  clock_.advance(milliseconds(900));
  batcher_.trigger();
  EXPECT_EQ(batcher_.untilClosed(), milliseconds(1000));
}

TEST_F(BatcherTest, TheMaximumWindowClosesAStreamOfPods) {
  batcher_.trigger();
  for (int i = 0; i < 19; ++i) {
    clock_.advance(milliseconds(500));
    batcher_.trigger();
  }
  // 9.5 s after the first pod, the idle window would end at 10.5 s; the maximum ends it at 10.
  EXPECT_EQ(batcher_.untilClosed(), milliseconds(500));
  clock_.advance(milliseconds(500));
  batcher_.trigger();
  EXPECT_EQ(batcher_.untilClosed(), milliseconds(0));
}

TEST_F(BatcherTest, ResetStartsTheNextBatch) {
  batcher_.trigger();
  clock_.advance(seconds(2));
  batcher_.reset();
  EXPECT_FALSE(batcher_.untilClosed().has_value());
  batcher_.trigger();
  EXPECT_EQ(batcher_.untilClosed(), milliseconds(1000));
}

}  // namespace
}  // namespace nodewright::controllers::provisioning
