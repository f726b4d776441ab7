#include "core/log.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace nodewright::core {
namespace {

bool isKeyByte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.' || c == '/';
}

void appendEscaped(std::string& out, std::string_view text) {
  for (char c : text) {
    if (c == kLogEscape || c == kLogFieldSeparator) {
      out.push_back(kLogEscape);
    }
    out.push_back(c);
  }
}

// Reads one escaped run from `payload` at `pos` up to the next unescaped separator (or the end)
// into `out`; nullopt when the text ends inside an escape.
std::optional<size_t> readEscaped(std::string_view payload, size_t pos, std::string& out) {
  while (pos < payload.size() && payload[pos] != kLogFieldSeparator) {
    if (payload[pos] == kLogEscape) {
      if (++pos == payload.size()) {
        return std::nullopt;
      }
    }
    out.push_back(payload[pos++]);
  }
  return pos;
}

}  // namespace

LogField::LogField(std::string_view key, double value)
    : key_(key), value_(fmt::format("{}", value)) {}

std::string encodeLogPayload(std::string_view message, LogFields fields) {
  if (fields.size() == 0) {
    return std::string(message);
  }
  std::string out;
  appendEscaped(out, message);
  for (const auto& field : fields) {
    out.push_back(kLogFieldSeparator);
    if (field.key().empty()) {
      out.push_back('_');
    }
    for (unsigned char c : field.key()) {
      out.push_back(isKeyByte(c) ? static_cast<char>(c) : '_');
    }
    out.push_back('=');
    appendEscaped(out, field.value());
  }
  return out;
}

std::optional<DecodedLog> decodeLogPayload(std::string_view payload) {
  if (payload.find(kLogFieldSeparator) == std::string_view::npos) {
    return std::nullopt;
  }
  DecodedLog decoded;
  auto pos = readEscaped(payload, 0, decoded.message);
  while (pos && *pos < payload.size()) {
    size_t start = *pos + 1;  // past the separator
    size_t equals = start;
    while (equals < payload.size() && isKeyByte(static_cast<unsigned char>(payload[equals]))) {
      ++equals;
    }
    if (equals == start || equals == payload.size() || payload[equals] != '=') {
      return std::nullopt;
    }
    std::string value;
    pos = readEscaped(payload, equals + 1, value);
    decoded.fields.emplace_back(std::string(payload.substr(start, equals - start)),
                                std::move(value));
  }
  if (!pos) {
    return std::nullopt;
  }
  return decoded;
}

void log(spdlog::logger& logger, spdlog::level::level_enum level, std::string_view message,
         LogFields fields) {
  if (!logger.should_log(level)) {
    return;
  }
  // Through "{}" so that braces in values are text, never a format string.
  logger.log(level, "{}", encodeLogPayload(message, fields));
}

void logDebug(std::string_view message, LogFields fields) {
  log(*spdlog::default_logger_raw(), spdlog::level::debug, message, fields);
}
void logInfo(std::string_view message, LogFields fields) {
  log(*spdlog::default_logger_raw(), spdlog::level::info, message, fields);
}
void logWarn(std::string_view message, LogFields fields) {
  log(*spdlog::default_logger_raw(), spdlog::level::warn, message, fields);
}
void logError(std::string_view message, LogFields fields) {
  log(*spdlog::default_logger_raw(), spdlog::level::err, message, fields);
}
void logDebug(spdlog::logger& logger, std::string_view message, LogFields fields) {
  log(logger, spdlog::level::debug, message, fields);
}
void logInfo(spdlog::logger& logger, std::string_view message, LogFields fields) {
  log(logger, spdlog::level::info, message, fields);
}
void logWarn(spdlog::logger& logger, std::string_view message, LogFields fields) {
  log(logger, spdlog::level::warn, message, fields);
}
void logError(spdlog::logger& logger, std::string_view message, LogFields fields) {
  log(logger, spdlog::level::err, message, fields);
}

}  // namespace nodewright::core
