#include "runtime/logging.h"

#include <mutex>

#include <fmt/format.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

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

// %j: the message as a JSON string value; %K: ,"controller":..,"object":.. when in a reconcile.
class JsonMessageFlag : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    auto text = jsonEscape(std::string(msg.payload.data(), msg.payload.size()));
    dest.append(text.data(), text.data() + text.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<JsonMessageFlag>();
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
        R"({"time":"%Y-%m-%dT%H:%M:%S.%fZ","level":"%l","logger":"%n"%K,"msg":"%j"})");
  } else {
    formatter->add_flag<ConsoleContextFlag>('K').set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %n %K%v");
  }
  return formatter;
}

}  // namespace

std::string jsonEscape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
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
