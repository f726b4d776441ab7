#include "apiserver/storage/owner_index.h"

#include <gtest/gtest.h>

namespace nodewright::apiserver::storage {
namespace {

using api::Json;

TEST(OwnerUidsTest, ReadsEveryWellFormedReference) {
  Json object = {{"metadata",
                  {{"ownerReferences", Json::array({{{"uid", "b"}},
                                                    {{"uid", "a"}},
                                                    {{"uid", "a"}},
                                                    {{"uid", 7}},
                                                    {{"uid", ""}},
                                                    "junk",
                                                    {{"name", "no-uid"}}})}}}};
  EXPECT_EQ(ownerUids(object), (std::vector<std::string>{"a", "b"}));
}

TEST(OwnerUidsTest, ToleratesMalformedObjects) {
  EXPECT_TRUE(ownerUids(Json::array()).empty());
  EXPECT_TRUE(ownerUids(Json{{"metadata", "x"}}).empty());
  EXPECT_TRUE(ownerUids(Json{{"metadata", {{"ownerReferences", "x"}}}}).empty());
  EXPECT_TRUE(ownerUids(Json::object()).empty());
}

TEST(OwnerIndexTest, MovesKeysBetweenOwners) {
  OwnerIndex index;
  Json ownedByA = {{"metadata", {{"ownerReferences", Json::array({{{"uid", "a"}}})}}}};
  Json ownedByAB = {
      {"metadata", {{"ownerReferences", Json::array({{{"uid", "a"}}, {{"uid", "b"}}})}}}};
  index.update("k1", nullptr, &ownedByA);
  index.update("k2", nullptr, &ownedByAB);
  EXPECT_EQ(index.dependentsOf("a"), (std::vector<std::string>{"k1", "k2"}));
  index.update("k2", &ownedByAB, &ownedByA);
  EXPECT_TRUE(index.dependentsOf("b").empty());
  index.update("k1", &ownedByA, nullptr);
  index.update("k2", &ownedByA, nullptr);
  EXPECT_TRUE(index.dependentsOf("a").empty());
  EXPECT_EQ(index.ownerCount(), 0u) << "empty owners are dropped";
}

}  // namespace
}  // namespace nodewright::apiserver::storage
