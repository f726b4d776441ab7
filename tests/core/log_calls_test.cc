// Keeps issue 21 fixed: every log line in src/ goes through core/log.h (a constant message plus
// key/value fields), so that the JSON format has each value as a field of its own.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace nodewright::core {
namespace {

namespace fs = std::filesystem;

// Files that may call spdlog's own log functions: the implementation of the structured API.
const std::vector<std::string> kAllowed = {"src/core/log.cc", "src/core/log.h",
                                           "src/runtime/logging.cc", "src/runtime/logging.h"};

struct Hit {
  std::string file;
  int line;
  std::string text;
};

// Hits of `pattern` in src/; files with none of `needles` are skipped (std::regex is slow).
std::vector<Hit> grepSources(const std::regex& pattern, std::vector<std::string_view> needles) {
  const fs::path root(NW_SOURCE_DIR);
  std::vector<Hit> hits;
  for (const auto& entry : fs::recursive_directory_iterator(root / "src")) {
    const auto ext = entry.path().extension();
    if (!entry.is_regular_file() || (ext != ".cc" && ext != ".h")) {
      continue;
    }
    const std::string relative = fs::relative(entry.path(), root).generic_string();
    if (std::find(kAllowed.begin(), kAllowed.end(), relative) != kAllowed.end()) {
      continue;
    }
    // Whole-file text: a call may span lines (the message on the next one).
    std::ifstream in(entry.path());
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    if (std::none_of(needles.begin(), needles.end(), [&](std::string_view needle) {
          return text.find(needle) != std::string::npos;
        })) {
      continue;
    }
    for (std::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it) {
      const auto at = static_cast<size_t>(it->position());
      const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
      hits.push_back({relative, line, it->str()});
    }
  }
  return hits;
}

std::string describe(const std::vector<Hit>& hits) {
  std::string out;
  for (const auto& hit : hits) {
    out += hit.file + ":" + std::to_string(hit.line) + ": " + hit.text + "\n";
  }
  return out;
}

// spdlog::info(...), SPDLOG_INFO(...); then logger_->warn(...), context.log().error(...).
const std::regex kDirect(
    R"(\bspdlog::(trace|debug|info|warn|error|critical|log)\s*\(|\bSPDLOG_[A-Z_]+\s*\()");
const std::regex kViaLogger(R"((\blog\(\)|\blogger_?|\bdefault_logger(_raw)?\(\))\s*(\.|->)\s*)"
                            R"((trace|debug|info|warn|error|critical|log)\s*\()");

bool flagged(const std::string& text) {
  return std::regex_search(text, kDirect) || std::regex_search(text, kViaLogger);
}

TEST(LogCallsTest, PatternsFlagTheUnstructuredForms) {
  EXPECT_TRUE(flagged(R"(spdlog::info("manager: the leader is {}", identity);)"));
  EXPECT_TRUE(flagged("spdlog::warn(\n    \"metrics: ...\");"));
  EXPECT_TRUE(flagged(R"(SPDLOG_DEBUG("x");)"));
  EXPECT_TRUE(flagged(R"(context.log().info("launched nodeclaim={}", name);)"));
  EXPECT_TRUE(flagged(R"(logger_->error("reconcile failed: {}", e);)"));
  EXPECT_TRUE(flagged(R"(spdlog::default_logger()->warn("x");)"));
  EXPECT_FALSE(flagged(R"(core::logInfo(context.log(), "launched nodeclaim", {{"a", b}});)"));
  EXPECT_FALSE(flagged(R"(auto group = found->info().group;)"));
}

TEST(LogCallsTest, SourcesLogOnlyThroughTheStructuredApi) {
  auto hits = grepSources(kDirect, {"spdlog::", "SPDLOG_"});
  auto more = grepSources(kViaLogger, {"log()", "logger"});
  hits.insert(hits.end(), more.begin(), more.end());
  EXPECT_TRUE(hits.empty()) << "log through core::logInfo/logWarn/... (core/log.h) instead:\n"
                            << describe(hits);
}

TEST(LogCallsTest, MessagesAreConstant) {
  // The message is the first string literal of a core::log*( call; values go in fields.
  const std::regex call(
      R"re(core::log(Debug|Info|Warn|Error)\(\s*(?:[^";]*?,\s*)?"((?:[^"\\]|\\.)*)")re");
  auto calls = grepSources(call, {"core::log"});
  EXPECT_GT(calls.size(), 50u) << "the pattern no longer finds the calls";
  std::vector<Hit> formatted;
  for (const auto& hit : calls) {
    if (hit.text.find("{}") != std::string::npos || hit.text.find("{:") != std::string::npos) {
      formatted.push_back(hit);
    }
  }
  EXPECT_TRUE(formatted.empty()) << "a message with a placeholder; put the value in a field:\n"
                                 << describe(formatted);
}

}  // namespace
}  // namespace nodewright::core
