#include "runtime/logging.h"

#include <mutex>

#include <fmt/format.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "core/log.h"
#include "core/utf8.h"

namespace nodewright::runtime {
namespace {

struct ThreadContext {
  std::string controller;
  std::string key;
};
thread_local ThreadContext current;

std::mutex mu;
spdlog::sink_ptr sharedSink;
LogOptions currentOptions;  // GUARDED_BY(mu)

// Members the JSON formatter writes itself; a field with one of these keys is written as
// "field-<key>" so that it neither replaces nor duplicates them.
bool reservedJsonKey(std::string_view key) {
  return key == "time" || key == "level" || key == "logger" || key == "controller" ||
         key == "object" || key == "msg";
}

void append(spdlog::memory_buf_t& dest, std::string_view text) {
  dest.append(text.data(), text.data() + text.size());
}

// %j: "msg":"..." and then one string member per field of a structured payload
// (core/log.h); any other payload is the message as it is.
class JsonMessageFlag : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    std::string_view payload(msg.payload.data(), msg.payload.size());
    auto decoded = core::decodeLogPayload(payload);
    if (!decoded) {
      append(dest, R"("msg":")" + jsonEscape(std::string(payload)) + "\"");
      return;
    }
    std::string text = R"("msg":")" + jsonEscape(decoded->message) + "\"";
    for (const auto& [key, value] : decoded->fields) {
      text += R"(,")";
      if (reservedJsonKey(key)) {
        text += "field-";
      }
      text += jsonEscape(key) + R"(":")" + jsonEscape(value) + "\"";
    }
    append(dest, text);
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<JsonMessageFlag>();
  }
};

// %V: the message, then ` key=value` per field of a structured payload (logfmt quoting); any
// other payload as it is.
class ConsoleMessageFlag : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    std::string_view payload(msg.payload.data(), msg.payload.size());
    auto decoded = core::decodeLogPayload(payload);
    if (!decoded) {
      append(dest, payload);
      return;
    }
    std::string text = decoded->message;
    for (const auto& [key, value] : decoded->fields) {
      text += " " + key + "=" + logfmtValue(value);
    }
    append(dest, text);
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<ConsoleMessageFlag>();
  }
};

class JsonContextFlag : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg&, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    if (current.controller.empty()) {
      return;
    }
    auto text = fmt::format(R"(,"controller":"{}","object":"{}")", jsonEscape(current.controller),
                            jsonEscape(current.key));
    dest.append(text.data(), text.data() + text.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<JsonContextFlag>();
  }
};

class ConsoleContextFlag : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg&, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    if (current.controller.empty()) {
      return;
    }
    auto text = fmt::format("controller={} object={} ", current.controller, current.key);
    dest.append(text.data(), text.data() + text.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<ConsoleContextFlag>();
  }
};

std::unique_ptr<spdlog::formatter> makeFormatter(LogFormat format) {
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  if (format == LogFormat::Json) {
    formatter->add_flag<JsonMessageFlag>('j').add_flag<JsonContextFlag>('K').set_pattern(
        R"({"time":"%Y-%m-%dT%H:%M:%S.%fZ","level":"%l","logger":"%n"%K,%j})");
  } else {
    formatter->add_flag<ConsoleContextFlag>('K').add_flag<ConsoleMessageFlag>('V').set_pattern(
        "%Y-%m-%dT%H:%M:%S.%e %^%l%$ %n %K%V");
  }
  return formatter;
}

}  // namespace

std::string jsonEscape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  std::string_view rest(text);
  while (!rest.empty()) {
    auto c = static_cast<unsigned char>(rest.front());
    if (c >= 0x80) {
      // Invalid UTF-8 becomes U+FFFD, so that every line is valid JSON (Go's encoding/json).
      size_t length = core::utf8SequenceLength(rest);
      out.append(length == 0 ? std::string_view("\xEF\xBF\xBD") : rest.substr(0, length));
      rest.remove_prefix(length == 0 ? 1 : length);
      continue;
    }
    rest.remove_prefix(1);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          out += fmt::format("\\u{:04x}", c);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  return out;
}

std::string logfmtValue(std::string_view value) {
  bool plain = !value.empty();
  for (size_t i = 0; plain && i < value.size(); ++i) {
    auto c = static_cast<unsigned char>(value[i]);
    if (c <= ' ' || c == '=' || c == '"' || c == 0x7f) {
      plain = false;
    } else if (c >= 0x80) {
      size_t length = core::utf8SequenceLength(value.substr(i));
      plain = length != 0;
      i += length == 0 ? 0 : length - 1;
    }
  }
  if (plain) {
    return std::string(value);
  }
  std::string out = "\"";
  while (!value.empty()) {
    auto c = static_cast<unsigned char>(value.front());
    size_t length = c >= 0x80 ? core::utf8SequenceLength(value) : 1;
    if (length > 1) {
      out.append(value.substr(0, length));
    } else if (c == '"' || c == '\\') {
      out += '\\';
      out.push_back(static_cast<char>(c));
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c >= 0x7f) {
      // Control bytes and bytes of no valid UTF-8 sequence, as Go's strconv.Quote writes them.
      out += fmt::format("\\x{:02x}", c);
    } else {
      out.push_back(static_cast<char>(c));
    }
    value.remove_prefix(length == 0 ? 1 : length);
  }
  out += '"';
  return out;
}

core::Result<LogFormat> parseLogFormat(const std::string& text) {
  if (text == "console" || text == "text") {
    return LogFormat::Console;
  }
  if (text == "json") {
    return LogFormat::Json;
  }
  return core::fail(
      core::Error::invalid("--log-format: must be console or json, not \"" + text + "\""));
}

core::Status configureLogging(const LogOptions& options) {
  // Logs go to stderr: stdout is for command output.
  return configureLogging(options, std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
}

core::Status configureLogging(const LogOptions& options, spdlog::sink_ptr sink) {
  auto level = spdlog::level::from_str(options.level);
  if (level == spdlog::level::off && options.level != "off") {
    return core::fail(core::Error::invalid("--log-level: unknown level \"" + options.level + "\""));
  }
  std::lock_guard lock(mu);
  currentOptions = options;
  // Loggers named earlier keep their old sink; drop them so they are made again on this one.
  spdlog::drop_all();
  sharedSink = std::move(sink);
  sharedSink->set_formatter(makeFormatter(options.format));
  auto logger = std::make_shared<spdlog::logger>("nodewright", sharedSink);
  logger->set_level(level);
  spdlog::set_default_logger(logger);
  spdlog::set_level(level);
  return core::ok();
}

LogOptions currentLogOptions() {
  std::lock_guard lock(mu);
  return currentOptions;
}

std::shared_ptr<spdlog::logger> namedLogger(const std::string& name) {
  std::lock_guard lock(mu);
  if (auto existing = spdlog::get(name)) {
    return existing;
  }
  auto base = spdlog::default_logger();
  auto logger = std::make_shared<spdlog::logger>(name, base->sinks().begin(), base->sinks().end());
  logger->set_level(base->level());
  spdlog::register_logger(logger);
  return logger;
}

LogScope::LogScope(std::string controller, std::string key)
    : previousController_(std::move(current.controller)), previousKey_(std::move(current.key)) {
  current.controller = std::move(controller);
  current.key = std::move(key);
}

LogScope::~LogScope() {
  current.controller = std::move(previousController_);
  current.key = std::move(previousKey_);
}

}  // namespace nodewright::runtime
