#include <charconv>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "apiserver/table/human_duration.h"
#include "apiserver/table/json_access.h"
#include "apiserver/table/jsonpath.h"
#include "apiserver/table/printer.h"

// The apiextensions-apiserver table convertor: each printer column's JSONPath is evaluated with
// missing keys allowed, and the first value found becomes the cell, converted by column type.
namespace nodewright::apiserver::table {
namespace {

using api::Json;

// Go's fmt %v for a float64: the shortest digits that round-trip, in exponent form when the
// decimal exponent is below -4 or at least 6 (strconv's 'g' at shortest precision): 1.5, 1e+06.
std::string goFloat(double value) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::scientific);
  if (ec != std::errc()) {
    return "NaN";
  }
  const std::string sci(buf, end);  // "-d.ddde+XX"
  const size_t e = sci.find('e');
  if (e == std::string::npos) {
    return sci;  // inf, nan
  }
  const bool negative = sci.front() == '-';
  std::string digits;
  for (char c : sci.substr(negative ? 1 : 0, e - (negative ? 1 : 0))) {
    if (c != '.') {
      digits += c;
    }
  }
  const int exponent = std::stoi(sci.substr(e + 1));
  std::string out = negative ? "-" : "";
  if (exponent < -4 || exponent >= 6) {
    out += digits.substr(0, 1);
    if (digits.size() > 1) {
      out += "." + digits.substr(1);
    }
    const int magnitude = exponent < 0 ? -exponent : exponent;
    out += std::string(exponent < 0 ? "e-" : "e+") + (magnitude < 10 ? "0" : "") +
           std::to_string(magnitude);
    return out;
  }
  if (exponent < 0) {
    return out + "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
  }
  const auto point = static_cast<size_t>(exponent) + 1;
  if (digits.size() <= point) {
    return out + digits + std::string(point - digits.size(), '0');
  }
  return out + digits.substr(0, point) + "." + digits.substr(point);
}

// encoding/json: object keys sorted, and <, >, & and the JS line separators escaped.
std::string goJson(const Json& value) {
  const std::string sorted = nlohmann::json::parse(api::dumpJson(value)).dump();
  std::string out;
  for (size_t i = 0; i < sorted.size(); ++i) {
    const char c = sorted[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (sorted.compare(i, 3, "\xe2\x80\xa8") == 0 ||
               sorted.compare(i, 3, "\xe2\x80\xa9") == 0) {
      out += sorted[i + 2] == '\xa8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

// What client-go's JSONPath.PrintResults writes for one value.
std::string printed(const Json& value) {
  if (value.is_null()) {
    return "<no value>";
  }
  if (value.is_string()) {
    return value.get<std::string>();
  }
  if (value.is_boolean()) {
    return value.get<bool>() ? "true" : "false";
  }
  if (value.is_number_float()) {
    return goFloat(value.get<double>());
  }
  if (value.is_number()) {
    return api::dumpJson(value);
  }
  return goJson(value);
}

Json dateCell(const Json& value, core::TimePoint now) {
  if (!value.is_string()) {
    return Json();
  }
  const std::string& text = value.get_ref<const std::string&>();
  if (text.empty() || text == "null" || text.starts_with("0001-01-01T00:00:00")) {
    return "<unknown>";
  }
  auto at = core::Time::parse(text);
  if (!at) {
    return "<invalid>";
  }
  return humanDuration(now - at->point());
}

// cellForJSONValue, plus the string case the convertor prints through the JSONPath printer.
Json cell(const std::string& type, const Json& value, core::TimePoint now) {
  if (type == "string") {
    return printed(value);
  }
  if (type == "integer" && value.is_number()) {
    return value.is_number_float() ? Json(static_cast<int64_t>(value.get<double>()))
                                   : Json(value.get<int64_t>());
  }
  if (type == "number" && value.is_number()) {
    return value;
  }
  if (type == "boolean" && value.is_boolean()) {
    return value;
  }
  if (type == "date") {
    return dateCell(value, now);
  }
  return Json();
}

struct ParsedColumn {
  std::string type;
  JsonPath path;
};

}  // namespace

Printer columnPrinter(const std::vector<api::PrinterColumn>& columns) {
  std::vector<api::PrinterColumn> effective = columns;
  if (effective.empty()) {
    effective.push_back({"Age", "date", ".metadata.creationTimestamp",
                         std::string(kCreationTimestampDescription), 0});
  }
  Printer printer;
  printer.columns = {nameColumn()};
  auto parsed = std::make_shared<std::vector<ParsedColumn>>();
  for (const api::PrinterColumn& column : effective) {
    // Upstream parses "{path}" and stops at the first column that fails, keeping the rest out.
    auto path = JsonPath::parse("{" + column.jsonPath + "}");
    if (!path) {
      break;
    }
    parsed->push_back({column.type, std::move(*path)});
    printer.columns.push_back(
        {column.name, column.type, "",
         column.description.empty()
             ? "Custom resource definition column (in JSONPath format): " + column.jsonPath
             : column.description,
         column.priority});
  }
  printer.print = [parsed](const Json& object, core::TimePoint now) {
    Row row;
    row.cells.emplace_back(nameOf(object));
    for (const ParsedColumn& column : *parsed) {
      std::vector<Json> values = column.path.evaluate(object);
      row.cells.push_back(values.empty() ? Json() : cell(column.type, values.front(), now));
    }
    return row;
  };
  return printer;
}

}  // namespace nodewright::apiserver::table
