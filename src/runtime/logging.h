#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <spdlog/common.h>
#include <spdlog/logger.h>

#include "core/error.h"

// Process logging: spdlog with one sink shared by named loggers ("controller.nodeclaim"), in
// console or JSON lines. Log lines of a reconcile carry the controller and the object key.
namespace nodewright::runtime {

enum class LogFormat { Console, Json };

struct LogOptions {
  LogFormat format = LogFormat::Console;
  std::string level = "info";  // trace, debug, info, warn, error
};

// Replaces the default logger's sink and format; later named loggers share them.
core::Status configureLogging(const LogOptions& options);
// The same, writing to `sink` instead of stderr (tests).
core::Status configureLogging(const LogOptions& options, spdlog::sink_ptr sink);
core::Result<LogFormat> parseLogFormat(const std::string& text);
// What the last configureLogging() was given (a command that moves its logs to a file keeps
// the user's format and level).
LogOptions currentLogOptions();

// A logger named `name` on the shared sink (created once, then reused).
std::shared_ptr<spdlog::logger> namedLogger(const std::string& name);

// Escapes text for a JSON string value (log fields); invalid UTF-8 becomes U+FFFD.
std::string jsonEscape(const std::string& text);
// A logfmt value: as it is, or quoted and escaped when empty or when it holds a space, '=', '"',
// a control byte or invalid UTF-8 (`key="a b"`, `key="\x1f"`).
std::string logfmtValue(std::string_view value);

}  // namespace nodewright::runtime

namespace nodewright::runtime {

// While alive, every log line of this thread carries the controller and object key (a reconcile
// in a worker sets it).
class LogScope {
 public:
  LogScope(std::string controller, std::string key);
  ~LogScope();
  LogScope(const LogScope&) = delete;
  LogScope& operator=(const LogScope&) = delete;

 private:
  std::string previousController_;
  std::string previousKey_;
};

}  // namespace nodewright::runtime
