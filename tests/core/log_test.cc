#include "core/log.h"

#include <gtest/gtest.h>

#include <sstream>

#include <spdlog/sinks/ostream_sink.h>

namespace nodewright::core {
namespace {

using Fields = std::vector<std::pair<std::string, std::string>>;

TEST(LogPayloadTest, RoundTripsTheMessageAndFields) {
  auto payload = encodeLogPayload("aws: launched instance",
                                  {{"nodeclaim", "default-abc"}, {"instance-id", "i-0123"}});
  EXPECT_EQ(payload, "aws: launched instance\x1fnodeclaim=default-abc\x1finstance-id=i-0123");
  auto decoded = decodeLogPayload(payload);
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->message, "aws: launched instance");
  EXPECT_EQ(decoded->fields, (Fields{{"nodeclaim", "default-abc"}, {"instance-id", "i-0123"}}));
}

TEST(LogPayloadTest, AValueCannotEndItsField) {
  const std::string hostile = std::string("a\x1f") + "b=c\x1e" + "\x1e\x1f" + "d";
  auto decoded = decodeLogPayload(
      encodeLogPayload("m\x1fx=y", {{"value", hostile}, {"empty", ""}, {"after", "z"}}));
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->message, "m\x1fx=y");
  EXPECT_EQ(decoded->fields, (Fields{{"value", hostile}, {"empty", ""}, {"after", "z"}}));
}

TEST(LogPayloadTest, KeysAreKeptToTheirAlphabet) {
  auto decoded = decodeLogPayload(encodeLogPayload("m", {{"a key=\"x\"", "v"}, {"", "w"}}));
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->fields, (Fields{{"a_key__x_", "v"}, {"_", "w"}}));
}

TEST(LogPayloadTest, OtherPayloadsAreNotFieldLines) {
  EXPECT_FALSE(decodeLogPayload("plain text with key=value"));
  EXPECT_FALSE(decodeLogPayload(""));
  // Separator bytes that do not make fields: a third-party line with binary in it.
  EXPECT_FALSE(decodeLogPayload("binary \x1f no key here"));
  EXPECT_FALSE(decodeLogPayload("binary \x1f=empty key"));
  EXPECT_FALSE(decodeLogPayload("trailing escape\x1fk=v\x1e"));
  // A line without fields is its message as it is.
  EXPECT_EQ(encodeLogPayload("manager: became the leader", {}), "manager: became the leader");
}

TEST(LogFieldTest, FormatsNumbersDurationsAndErrors) {
  using namespace std::chrono_literals;
  EXPECT_EQ(LogField("n", 42).value(), "42");
  EXPECT_EQ(LogField("n", size_t{7}).value(), "7");
  EXPECT_EQ(LogField("n", -3L).value(), "-3");
  EXPECT_EQ(LogField("b", true).value(), "true");
  EXPECT_EQ(LogField("d", 0.25).value(), "0.25");
  EXPECT_EQ(LogField("t", 1500ms).value(), "1.5s");
  EXPECT_EQ(LogField("t", 90s).value(), "1m30s");
  EXPECT_EQ(LogField("t", std::chrono::duration<double>(0.012)).value(), "12ms");
  EXPECT_EQ(LogField("e", Error::notFound("no such instance").wrap("terminating")).value(),
            "terminating: no such instance");
  std::string owned = "owned";
  EXPECT_EQ(LogField("s", owned).value(), "owned");
  EXPECT_EQ(LogField("s", std::string_view("view")).value(), "view");
  EXPECT_EQ(LogField("s", "literal").key(), "s");
}

TEST(LogTest, WritesOnlyEnabledLevelsThroughTheLogger) {
  std::ostringstream out;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  sink->set_pattern("%l|%v");
  spdlog::logger logger("test", sink);
  logger.set_level(spdlog::level::info);
  logDebug(logger, "hidden", {{"k", "v"}});
  logInfo(logger, "shown {}", {{"braces", "{} stay text"}});
  logWarn(logger, "warned");
  logError(logger, "failed", {{"error", Error::internal("boom")}});
  logger.flush();
  EXPECT_EQ(out.str(),
            "info|shown {}\x1f"
            "braces={} stay text\n"
            "warning|warned\n"
            "error|failed\x1f"
            "error=boom\n");
}

}  // namespace
}  // namespace nodewright::core
