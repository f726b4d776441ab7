#include "apiserver/storage/write_plan.h"

#include <optional>

#include <gtest/gtest.h>

#include "apiserver/storage/store_test_support.h"

namespace nodewright::apiserver::storage {
namespace {

struct PreconditionCase {
  std::string name;
  WriteOp::Kind kind;
  int64_t expect;
  bool exists;  // the key is stored at revision 5
  std::optional<core::Code> error;
  EventType type = EventType::Added;
};

class WritePlanTest : public ::testing::TestWithParam<PreconditionCase> {};

TEST_P(WritePlanTest, ChecksPreconditionAgainstLatestState) {
  const PreconditionCase& c = GetParam();
  StoredPtr current = c.exists ? stampStored("pods/default/a", 5, testing::pod("a")) : nullptr;
  WriteOp op = testing::put("pods/default/a", testing::pod("a"), c.expect);
  op.kind = c.kind;
  auto plan = planWrite(std::move(op), current, 6);
  if (c.error) {
    ASSERT_FALSE(plan);
    EXPECT_EQ(plan.error().code(), *c.error) << plan.error().message();
    return;
  }
  ASSERT_TRUE(plan) << plan.error().message();
  EXPECT_EQ(plan->type, c.type);
  EXPECT_EQ(plan->stored->revision, 6);
  EXPECT_EQ((*plan->stored->object)["metadata"]["resourceVersion"], "6");
  EXPECT_EQ(plan->previous, current);
}

using Kind = WriteOp::Kind;
constexpr int64_t kMustNotExist = WriteOp::kMustNotExist;
constexpr int64_t kAny = WriteOp::kAny;

INSTANTIATE_TEST_SUITE_P(
    Preconditions, WritePlanTest,
    ::testing::Values(
        PreconditionCase{"CreateMissing", Kind::Put, kMustNotExist, false, {}, EventType::Added},
        PreconditionCase{"CreateExisting", Kind::Put, kMustNotExist, true, core::Code::Conflict},
        PreconditionCase{"PutAnyMissing", Kind::Put, kAny, false, {}, EventType::Added},
        PreconditionCase{"PutAnyExisting", Kind::Put, kAny, true, {}, EventType::Modified},
        PreconditionCase{"UpdateCurrent", Kind::Put, 5, true, {}, EventType::Modified},
        PreconditionCase{"UpdateStale", Kind::Put, 4, true, core::Code::Conflict},
        PreconditionCase{"UpdateMissing", Kind::Put, 5, false, core::Code::NotFound},
        PreconditionCase{"DeleteAny", Kind::Delete, kAny, true, {}, EventType::Deleted},
        PreconditionCase{"DeleteCurrent", Kind::Delete, 5, true, {}, EventType::Deleted},
        PreconditionCase{"DeleteStale", Kind::Delete, 3, true, core::Code::Conflict},
        PreconditionCase{"DeleteMissing", Kind::Delete, kAny, false, core::Code::NotFound},
        PreconditionCase{"DeleteMustNotExist", Kind::Delete, kMustNotExist, true,
                         core::Code::Conflict},
        PreconditionCase{"BadExpectation", Kind::Put, -2, false, core::Code::Invalid}),
    [](const auto& info) { return info.param.name; });

TEST(StampStoredTest, TextIsTheCompactObject) {
  StoredPtr stored = stampStored("k", 12, {{"metadata", {{"name", "a"}}}, {"b", "é"}});
  EXPECT_EQ(*stored->text, R"({"metadata":{"name":"a","resourceVersion":"12"},"b":"é"})");
}

TEST(StampStoredTest, InvalidUtf8IsReplacedNotThrown) {
  StoredPtr stored = stampStored("k", 1, {{"bad", std::string("\xff")}});
  EXPECT_NE(stored->text->find("\xEF\xBF\xBD"), std::string::npos);
}

}  // namespace
}  // namespace nodewright::apiserver::storage
