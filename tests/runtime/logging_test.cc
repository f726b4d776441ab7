#include "runtime/logging.h"

#include <gtest/gtest.h>

#include <sstream>
#include <thread>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

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
