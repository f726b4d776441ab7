#include "core/random.h"

#include <gtest/gtest.h>

namespace nodewright::core {
namespace {

int failingSource(unsigned char*, int) {
  return 0;
}

TEST(RandomHexTest, GivesTwoHexDigitsPerByteAndDiffersEachTime) {
  auto a = randomHex(32);
  auto b = randomHex(32);
  ASSERT_TRUE(a) << a.error().message();
  ASSERT_TRUE(b) << b.error().message();
  EXPECT_EQ(a->size(), 64u);
  EXPECT_EQ(a->find_first_not_of("0123456789abcdef"), std::string::npos) << *a;
  EXPECT_NE(*a, *b);
}

TEST(RandomHexTest, AFailingGeneratorIsAnErrorNotAToken) {
  auto drawn = randomHex(32, failingSource);
  ASSERT_FALSE(drawn);
  EXPECT_EQ(drawn.error().code(), Code::Internal);
  EXPECT_NE(drawn.error().message().find("random number generator failed"), std::string::npos)
      << drawn.error().message();
}

}  // namespace
}  // namespace nodewright::core
