#pragma once

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <pugixml.hpp>

#include "aws/error.h"
#include "aws/query.h"
#include "core/clock.h"
#include "emulators/ec2/action.h"
#include "emulators/ec2/catalog.h"
#include "emulators/ec2/world.h"
#include "emulators/engine/engine.h"

// The read-only actions in process: a seeded world on a FakeClock and the table
// addDescribeActions() fills, called the way the emulator's front end calls it.
namespace nodewright::emulators::ec2::testing {

class DescribeWorld {
 public:
  explicit DescribeWorld(const WorldConfig& config = defaultWorld(),
                         Catalog catalog = builtinCatalog())
      : engine_(clock_), catalog_(std::move(catalog)) {
    auto world = seedWorld(engine_.store(), config);
    EXPECT_TRUE(world) << world.error().message();
    if (world) {
      world_ = std::move(*world);
    }
    addDescribeActions(table_);
  }

  // Calls `action` with the form-encoded `query` ("InstanceType.1=m5.large&...").
  aws::ApiResult<std::string> call(std::string_view action, std::string_view query = "") {
    auto params = aws::Params::parse(query);
    if (!params) {
      return tl::unexpected(params.error());
    }
    auto entry = table_.find(action);
    if (entry == table_.end()) {
      return aws::apiFail("InvalidAction", std::string(action));
    }
    ActionContext ctx{engine_, catalog_, world_, *params, action, "req-1", "nodewright"};
    return entry->second.handler(ctx);
  }

  core::FakeClock& clock() { return clock_; }
  Engine& engine() { return engine_; }
  const Catalog& catalog() const { return catalog_; }
  const World& world() const { return world_; }
  const ActionTable& table() const { return table_; }

 private:
  core::FakeClock clock_;
  Engine engine_;
  Catalog catalog_;
  World world_;
  ActionTable table_;
};

// A parsed response; root() is <{Action}Response>.
class Xml {
 public:
  explicit Xml(const std::string& text) {
    EXPECT_TRUE(doc_.load_string(text.c_str())) << text.substr(0, 400);
  }
  pugi::xml_node root() const { return doc_.document_element(); }
  // The <item>s of the top-level list `list`.
  std::vector<pugi::xml_node> items(const char* list) const {
    std::vector<pugi::xml_node> out;
    for (pugi::xml_node item : root().child(list).children("item")) {
      out.push_back(item);
    }
    return out;
  }
  // Each item's child `field` as text.
  std::vector<std::string> texts(const char* list, const char* field) const {
    std::vector<std::string> out;
    for (pugi::xml_node item : items(list)) {
      out.push_back(item.child_value(field));
    }
    return out;
  }
  std::string nextToken() const { return root().child_value("nextToken"); }

 private:
  pugi::xml_document doc_;
};

// Every page of `action` with `query`, following NextToken; fails the test on an error or a
// token seen twice.
inline std::vector<std::string> allPages(DescribeWorld& w, std::string_view action,
                                         const std::string& query, const char* list,
                                         const char* field, int* pages = nullptr) {
  std::vector<std::string> out;
  std::set<std::string> tokens;
  std::string token;
  for (int page = 0; page < 10000; ++page) {
    std::string q = query;
    if (!token.empty()) {
      q += "&NextToken=" + token;
    }
    auto body = w.call(action, q);
    EXPECT_TRUE(body) << body.error().code << ": " << body.error().message;
    if (!body) {
      return out;
    }
    Xml xml(*body);
    auto texts = xml.texts(list, field);
    out.insert(out.end(), texts.begin(), texts.end());
    token = xml.nextToken();
    if (pages) {
      *pages = page + 1;
    }
    if (token.empty()) {
      return out;
    }
    EXPECT_TRUE(tokens.insert(token).second) << "token repeated: " << token;
    EXPECT_FALSE(texts.empty()) << "an empty page with a NextToken";
  }
  ADD_FAILURE() << "pagination does not end";
  return out;
}

inline void expectError(const aws::ApiResult<std::string>& result, const std::string& code,
                        const std::string& messagePart = "") {
  ASSERT_FALSE(result) << "expected " << code << ", got a response";
  EXPECT_EQ(result.error().code, code) << result.error().message;
  EXPECT_NE(result.error().message.find(messagePart), std::string::npos) << result.error().message;
}

// A world whose main VPC has `extra` more subnets (for paging) and is the default VPC.
inline WorldConfig worldWithSubnets(int extra) {
  WorldConfig config = defaultWorld();
  config.vpcs[0].isDefault = true;
  for (int i = 0; i < extra; ++i) {
    SubnetConfig s;
    s.id = fmt::format("subnet-0aaaaaaaaaaaa{:04d}", i);
    s.zone = "us-east-1b";
    s.cidrBlock = fmt::format("10.0.{}.0/24", 200 + i);
    s.tags = {{"page", "yes"}};
    config.vpcs[0].subnets.push_back(s);
  }
  return config;
}

// The default world, for the tests of one action group each.
class DescribeActionsTest : public ::testing::Test {
 protected:
  DescribeWorld w_;
};

}  // namespace nodewright::emulators::ec2::testing
