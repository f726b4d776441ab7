#pragma once

#include <chrono>
#include <concepts>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <spdlog/common.h>
#include <spdlog/logger.h>

#include "core/duration.h"
#include "core/error.h"

// Structured log lines: a constant message plus key/value fields, in the spirit of klog's InfoS
// and logr. Keys are kebab-case constants ("instance-id"); values are strings, with overloads for
// numbers, durations and errors so call sites stay short:
//
//   core::logInfo("aws: launched instance", {{"nodeclaim", name}, {"instance-id", id}});
//   core::logWarn(context.log(), "deleting nodeclaim failed", {{"error", removed.error()}});
//
// The line travels through spdlog as one payload (encodeLogPayload below) that the process's
// formatters (runtime/logging.cc) split again: console renders `message key=value key="a b"`
// (logfmt quoting), JSON renders "msg" plus one string member per field. Never pass a secret
// (token, key, password, Secret data) as a value.
namespace nodewright::core {

class LogField {
 public:
  LogField(std::string_view key, std::string value) : key_(key), value_(std::move(value)) {}
  LogField(std::string_view key, std::string_view value) : key_(key), value_(value) {}
  LogField(std::string_view key, const char* value) : key_(key), value_(value) {}
  LogField(std::string_view key, bool value) : key_(key), value_(value ? "true" : "false") {}
  template <std::integral T>
  requires(!std::same_as<T, bool> && !std::same_as<T, char>) LogField(std::string_view key, T value)
      : key_(key), value_(std::to_string(value)) {}
  LogField(std::string_view key, double value);
  // Go's duration form, as Kubernetes writes it: "300ms", "1m30s".
  template <class Rep, class Period>
  LogField(std::string_view key, std::chrono::duration<Rep, Period> value)
      : key_(key),
        value_(Duration(std::chrono::round<std::chrono::nanoseconds>(value)).toString()) {}
  // The error's message (with its wrapped context).
  LogField(std::string_view key, const Error& error) : key_(key), value_(error.message()) {}

  const std::string& key() const { return key_; }
  const std::string& value() const { return value_; }

 private:
  std::string key_;
  std::string value_;
};

using LogFields = std::initializer_list<LogField>;

// On the default logger.
void logDebug(std::string_view message, LogFields fields = {});
void logInfo(std::string_view message, LogFields fields = {});
void logWarn(std::string_view message, LogFields fields = {});
void logError(std::string_view message, LogFields fields = {});
// On a named logger (a reconcile's context.log()).
void logDebug(spdlog::logger& logger, std::string_view message, LogFields fields = {});
void logInfo(spdlog::logger& logger, std::string_view message, LogFields fields = {});
void logWarn(spdlog::logger& logger, std::string_view message, LogFields fields = {});
void logError(spdlog::logger& logger, std::string_view message, LogFields fields = {});
// Encodes only when the level is enabled.
void log(spdlog::logger& logger, spdlog::level::level_enum level, std::string_view message,
         LogFields fields);

// The payload's wire form, private to this file and runtime/logging.cc:
//   payload := message (US key '=' value)*       US = '\x1f' (ASCII unit separator)
// In the message and in values, the bytes '\x1e' and '\x1f' are escaped by a '\x1e' before them,
// so a value can never end a field. A key is [A-Za-z0-9._/-]+; other bytes become '_'. A line
// without fields is its message, unchanged. A substring test on raw payloads ("action=Run")
// still matches.
inline constexpr char kLogFieldSeparator = '\x1f';
inline constexpr char kLogEscape = '\x1e';

std::string encodeLogPayload(std::string_view message, LogFields fields);

struct DecodedLog {
  std::string message;
  std::vector<std::pair<std::string, std::string>> fields;
};
// The message and fields of an encoded payload, or nullopt for any payload that is not one
// (third-party or legacy lines, which then render as they are).
std::optional<DecodedLog> decodeLogPayload(std::string_view payload);

}  // namespace nodewright::core
