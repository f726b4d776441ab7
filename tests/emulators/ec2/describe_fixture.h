#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include <pugixml.hpp>

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

}  // namespace nodewright::emulators::ec2::testing
