#include "runtime/logging.h"

#include <gtest/gtest.h>

#include <sstream>
#include <thread>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "core/log.h"
#include "runtime/controller.h"

namespace nodewright::runtime {
namespace {

class LoggingTest : public ::testing::Test {
 protected:
  void configure(LogFormat format, const std::string& level) {
    out_.str("");
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out_);
    ASSERT_TRUE(configureLogging({format, level}, sink));
  }
  std::vector<std::string> lines() {
    spdlog::default_logger()->flush();
    std::vector<std::string> out;
    std::istringstream in(out_.str());
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) {
        out.push_back(line);
      }
    }
    return out;
  }
  void TearDown() override { (void)configureLogging({}); }

  std::ostringstream out_;
};

TEST_F(LoggingTest, JsonLinesCarryTheControllerAndObject) {
  configure(LogFormat::Json, "info");
  spdlog::info("plain \"quoted\"\nsecond line");
  {
    LogScope scope("nodeclaim", "default/claim-1");
    namedLogger("controller.nodeclaim")->warn("launch failed");
  }
  spdlog::info("after");
  auto got = lines();
  ASSERT_EQ(got.size(), 3u);
  auto first = nlohmann::json::parse(got[0]);
  EXPECT_EQ(first["msg"], "plain \"quoted\"\nsecond line");
  EXPECT_EQ(first["level"], "info");
  EXPECT_FALSE(first.contains("controller"));
  auto second = nlohmann::json::parse(got[1]);
  EXPECT_EQ(second["logger"], "controller.nodeclaim");
  EXPECT_EQ(second["controller"], "nodeclaim");
  EXPECT_EQ(second["object"], "default/claim-1");
  EXPECT_EQ(second["level"], "warning");
  EXPECT_FALSE(nlohmann::json::parse(got[2]).contains("object"));
}

TEST_F(LoggingTest, ConsoleLinesNameTheObject) {
  configure(LogFormat::Console, "info");
  {
    LogScope scope("capz", "ns/machine-0");
    spdlog::info("hello");
  }
  auto got = lines();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_NE(got[0].find("controller=capz object=ns/machine-0 hello"), std::string::npos) << got[0];
}

TEST_F(LoggingTest, RejectsUnknownLevelsAndFormats) {
  EXPECT_FALSE(configureLogging({LogFormat::Console, "loud"}));
  EXPECT_FALSE(parseLogFormat("xml"));
  EXPECT_EQ(*parseLogFormat("json"), LogFormat::Json);
}

TEST_F(LoggingTest, ConsoleRendersFieldsAsLogfmt) {
  configure(LogFormat::Console, "info");
  core::logInfo("aws: launched instance", {{"nodeclaim", "default-x"},
                                           {"instance-id", "i-0123"},
                                           {"count", 3},
                                           {"reason", "no capacity in zone"},
                                           {"expr", "a=b"},
                                           {"quote", "say \"hi\"\\"},
                                           {"lines", "one\ntwo\tthree"},
                                           {"control", std::string("a\x1f") + "b\x01"},
                                           {"bytes", "caf\xc3\xa9 \xff"},
                                           {"utf8", "caf\xc3\xa9"},
                                           {"empty", ""}});
  auto got = lines();
  ASSERT_EQ(got.size(), 1u);
  const std::string want =
      "aws: launched instance nodeclaim=default-x instance-id=i-0123 count=3 "
      "reason=\"no capacity in zone\" expr=\"a=b\" quote=\"say \\\"hi\\\"\\\\\" "
      "lines=\"one\\ntwo\\tthree\" control=\"a\\x1fb\\x01\" bytes=\"caf\xc3\xa9 \\xff\" "
      "utf8=caf\xc3\xa9 empty=\"\"";
  EXPECT_TRUE(got[0].ends_with(" info nodewright " + want)) << got[0];
}

TEST_F(LoggingTest, ConsoleFieldsFollowTheObject) {
  configure(LogFormat::Console, "info");
  {
    LogScope scope("nodeclaim", "default/claim-1");
    core::logWarn(*namedLogger("controller.nodeclaim"), "reconcile failed",
                  {{"error", core::Error::internal("boom")}});
  }
  auto got = lines();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(got[0].ends_with(
      " controller.nodeclaim controller=nodeclaim object=default/claim-1 reconcile failed "
      "error=boom"))
      << got[0];
}

TEST_F(LoggingTest, JsonWritesEachFieldAsAMember) {
  configure(LogFormat::Json, "info");
  {
    LogScope scope("nodeclaim", "default/claim-1");
    core::logInfo("aws: launched instance", {{"nodeclaim", "default-x"},
                                             {"instance-id", "i-0123"},
                                             {"count", 3},
                                             {"reason", "two words \"quoted\"\nnext"},
                                             {"control", std::string("a\x1f") + "b\x01"},
                                             {"bytes", "caf\xc3\xa9 \xff"},
                                             {"object", "mine"},
                                             {"msg", "mine too"},
                                             {"level", "fine"}});
  }
  auto got = lines();
  ASSERT_EQ(got.size(), 1u);
  auto line = nlohmann::json::parse(got[0]);
  EXPECT_EQ(line["msg"], "aws: launched instance");
  EXPECT_EQ(line["level"], "info");
  EXPECT_EQ(line["logger"], "nodewright");
  EXPECT_EQ(line["controller"], "nodeclaim");
  EXPECT_EQ(line["object"], "default/claim-1");
  EXPECT_EQ(line["nodeclaim"], "default-x");
  EXPECT_EQ(line["instance-id"], "i-0123");
  EXPECT_EQ(line["count"], "3");
  EXPECT_EQ(line["reason"], "two words \"quoted\"\nnext");
  EXPECT_EQ(line["control"], std::string("a\x1f") + "b\x01");
  EXPECT_EQ(line["bytes"], "caf\xc3\xa9 \xef\xbf\xbd");  // invalid UTF-8 becomes U+FFFD
  // Fields named like the formatter's own members keep both.
  EXPECT_EQ(line["field-object"], "mine");
  EXPECT_EQ(line["field-msg"], "mine too");
  EXPECT_EQ(line["field-level"], "fine");
  EXPECT_EQ(line.size(), 15u) << got[0];
  // Members in order: the fixed ones, then msg, then the fields as given.
  EXPECT_LT(got[0].find("\"object\":"), got[0].find("\"msg\":"));
  EXPECT_LT(got[0].find("\"msg\":"), got[0].find("\"nodeclaim\":"));
  EXPECT_LT(got[0].find("\"nodeclaim\":"), got[0].find("\"instance-id\":"));
}

TEST_F(LoggingTest, OtherPayloadsRenderAsBefore) {
  const std::string legacy = "third party: a \x1f b=c {} \"q\"";
  configure(LogFormat::Console, "info");
  spdlog::info("{}", legacy);
  spdlog::info("plain key=value text");
  auto console = lines();
  ASSERT_EQ(console.size(), 2u);
  EXPECT_TRUE(console[0].ends_with(" info nodewright " + legacy)) << console[0];
  EXPECT_TRUE(console[1].ends_with(" info nodewright plain key=value text")) << console[1];

  configure(LogFormat::Json, "info");
  spdlog::info("{}", legacy);
  auto json = lines();
  ASSERT_EQ(json.size(), 1u);
  auto line = nlohmann::json::parse(json[0]);
  EXPECT_EQ(line["msg"], legacy);
  EXPECT_EQ(line.size(), 4u) << json[0];
}

class Waiting : public Reconciler {
 public:
  Outcome reconcile(const Request&, Context&) override {
    ++calls;
    return Result::waiting(std::chrono::seconds(15));
  }
  std::atomic<int> calls{0};
};

// CAPZ issue 2112: "operation not done" must never be an error line.
TEST_F(LoggingTest, InProgressOutcomesAreDebugNotErrors) {
  for (const char* level : {"info", "debug"}) {
    configure(LogFormat::Json, level);
    core::FakeClock clock;
    Waiting reconciler;
    Controller controller("azuremachine", reconciler, clock, {}, nullptr);
    std::stop_source stop;
    controller.start(stop.get_token());
    controller.enqueue({"default", "vm-0"});
    while (controller.queue().delayedLength() == 0) {
      std::this_thread::yield();
    }
    controller.stop();
    ASSERT_EQ(reconciler.calls, 1);
    auto got = lines();
    for (const auto& line : got) {
      EXPECT_EQ(nlohmann::json::parse(line)["level"], "debug") << line;
    }
    if (std::string(level) == "debug") {
      ASSERT_EQ(got.size(), 1u);
      auto parsed = nlohmann::json::parse(got[0]);
      EXPECT_NE(parsed["msg"].get<std::string>().find("in progress"), std::string::npos);
      EXPECT_EQ(parsed["object"], "default/vm-0");
    } else {
      EXPECT_TRUE(got.empty());
    }
  }
}

}  // namespace
}  // namespace nodewright::runtime
