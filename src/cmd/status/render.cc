#include "cmd/status/render.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

namespace nodewright::cmd::status {
namespace {

constexpr int kBarCells = 10;
constexpr const char* kReset = "\033[0m";
constexpr const char* kGreen = "\033[32m";
constexpr const char* kYellow = "\033[33m";
constexpr const char* kRed = "\033[31m";

// Terminal columns of UTF-8 text without escapes: one per code point (the bar glyphs are
// single-width).
size_t columns(const std::string& text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

// Cuts a line to `width` columns, skipping over ANSI sequences, which take none.
std::string cut(const std::string& line, int width, bool color) {
  if (width <= 0) {
    return line;
  }
  std::string out;
  size_t used = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (c == '\033') {
      size_t end = line.find('m', i);
      end = end == std::string::npos ? line.size() - 1 : end;
      out.append(line, i, end - i + 1);
      i = end;
      continue;
    }
    bool starts = (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    if (starts && used == static_cast<size_t>(width)) {
      if (color) {
        out += kReset;  // a colour cut off mid-cell must not leak into the next line
      }
      return out;
    }
    used += starts ? 1 : 0;
    out += c;
  }
  return out;
}

struct Cell {
  std::string text;
  const char* color = nullptr;
};
using Row = std::vector<Cell>;

// Columns padded to their widest cell, two spaces apart; the last cell is not padded.
void table(std::vector<std::string>& lines, const std::vector<Row>& rows, bool color) {
  std::vector<size_t> widths;
  for (const Row& row : rows) {
    widths.resize(std::max(widths.size(), row.size()));
    for (size_t i = 0; i < row.size(); ++i) {
      widths[i] = std::max(widths[i], columns(row[i].text));
    }
  }
  for (const Row& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      const Cell& cell = row[i];
      if (color && cell.color != nullptr) {
        line += std::string(cell.color) + cell.text + kReset;
      } else {
        line += cell.text;
      }
      if (i + 1 < row.size()) {
        line += std::string(widths[i] - columns(cell.text) + 2, ' ');
      }
    }
    lines.push_back(line);
  }
}

int percent(const Usage& usage) {
  if (usage.allocatable <= 0) {
    return 0;
  }
  return static_cast<int>(std::lround(100.0 * static_cast<double>(usage.requested) /
                                      static_cast<double>(usage.allocatable)));
}

const char* usageColor(const Usage& usage) {
  int p = percent(usage);
  return p >= 90 ? kRed : p >= 70 ? kYellow : kGreen;
}

std::string usageText(const char* label, const Usage& usage) {
  char pct[16];
  if (usage.allocatable <= 0) {
    std::snprintf(pct, sizeof pct, "%4s", "-");
  } else {
    std::snprintf(pct, sizeof pct, "%3d%%", percent(usage));
  }
  return std::string(label) + " " + bar(usage, kBarCells) + " " + pct;
}

std::string dollars(double usd) {
  char text[32];
  std::snprintf(text, sizeof text, "$%.3f", usd);
  return text;
}

std::string join(const std::vector<std::string>& parts, const char* separator) {
  std::string out;
  for (const std::string& part : parts) {
    out += (out.empty() ? "" : separator) + part;
  }
  return out;
}

std::string summaryLine(const Summary& s) {
  std::ostringstream line;
  line << "nodewright status  nodes " << s.nodes;
  if (s.launching > 0) {
    line << " (+" << s.launching << " launching)";
  }
  line << "  pods " << s.pods;
  if (s.pendingPods > 0) {
    line << " (" << s.pendingPods << " pending)";
  }
  line << "  cost " << dollars(s.costPerHour) << "/h  cloud objects " << s.cloudObjects;
  return line.str();
}

void nodeLines(std::vector<std::string>& lines, const View& view, const RenderOptions& options) {
  if (view.nodes.empty()) {
    lines.push_back("no nodes");
    return;
  }
  std::vector<Row> rows{{{"NODE"},
                         {"NODEPOOL"},
                         {"TYPE"},
                         {"ZONE"},
                         {"CAPACITY"},
                         {"PRICE/H"},
                         {"CPU"},
                         {"MEMORY"},
                         {"PODS"},
                         {"STATE"},
                         {"AGE"}}};
  auto orDash = [](const std::string& s) { return s.empty() ? std::string("-") : s; };
  for (const NodeRow& node : view.nodes) {
    std::vector<std::string> state{node.readiness};
    state.insert(state.end(), node.disruption.begin(), node.disruption.end());
    const char* stateColor = !node.disruption.empty()        ? kYellow
                             : node.readiness == "ready"     ? kGreen
                             : node.readiness == "launching" ? kYellow
                                                             : kRed;
    rows.push_back({{node.name},
                    {orDash(node.nodePool)},
                    {orDash(node.instanceType)},
                    {orDash(node.zone)},
                    {orDash(node.capacityType)},
                    {node.pricePerHour ? dollars(*node.pricePerHour) : "-"},
                    {usageText("cpu", node.cpu), usageColor(node.cpu)},
                    {usageText("mem", node.memory), usageColor(node.memory)},
                    {std::to_string(node.pods)},
                    {join(state, ","), stateColor},
                    {age(options.now, node.created)}});
  }
  table(lines, rows, options.color);
}

std::string limitText(const LimitUse& limit) {
  if (limit.resource == "cpu") {
    return "cpu " + cores(limit.used.milliValue()) + "/" + cores(limit.limit.milliValue());
  }
  if (limit.resource == "memory") {
    return "memory " + bytes(limit.used.value()) + "/" + bytes(limit.limit.value());
  }
  return limit.resource + " " + limit.used.toString() + "/" + limit.limit.toString();
}

void poolLines(std::vector<std::string>& lines, const View& view, bool color) {
  if (view.pools.empty()) {
    return;
  }
  std::vector<Row> rows{{{"NODEPOOL"}, {"NODES"}, {"CPU"}, {"MEMORY"}, {"PRICE/H"}, {"LIMITS"}}};
  for (const PoolRow& pool : view.pools) {
    std::vector<std::string> limits;
    for (const LimitUse& limit : pool.limits) {
      limits.push_back(limitText(limit));
    }
    rows.push_back({{pool.name},
                    {std::to_string(pool.nodes)},
                    {cores(pool.cpuMilli)},
                    {bytes(pool.memoryBytes)},
                    {dollars(pool.pricePerHour)},
                    {limits.empty() ? "-" : join(limits, "  ")}});
  }
  table(lines, rows, color);
}

std::string futureText(const FutureCell& future, core::TimePoint now) {
  return future.type + " " + future.serviceName + "/" + future.name + " " + age(now, future.since);
}

std::string headline(const CloudRow& row, bool color) {
  std::string ready = row.ready ? "ready" : "not-ready";
  if (color) {
    ready = std::string(row.ready ? kGreen : kRed) + ready + kReset;
  }
  std::string line =
      row.kind + " " + (row.ns.empty() ? "" : row.ns + "/") + row.name + "  " + ready;
  if (!row.vmState.empty()) {
    line += "  vm " + row.vmState;
  }
  return line;
}

void cloudBlock(std::vector<std::string>& lines, const CloudRow& row,
                const RenderOptions& options) {
  lines.push_back(headline(row, options.color) + "  age " + age(options.now, row.created));
  std::vector<Row> rows;
  for (const ConditionCell& c : row.conditions) {
    rows.push_back({{"  " + c.type},
                    {c.status, c.status == "True" ? kGreen : kRed},
                    {c.reason.empty() ? "-" : c.reason}});
  }
  table(lines, rows, options.color);
  for (const FutureCell& f : row.futures) {
    lines.push_back("  future " + futureText(f, options.now));
  }
}

void cloudLine(std::vector<std::string>& lines, const CloudRow& row, const RenderOptions& options) {
  std::string line = headline(row, options.color);
  for (const ConditionCell& c : row.conditions) {
    if (c.status != "True") {
      line += "  " + c.type + "=" + c.status + (c.reason.empty() ? "" : "(" + c.reason + ")");
    }
  }
  for (const FutureCell& f : row.futures) {
    line += "  future " + futureText(f, options.now);
  }
  lines.push_back(line);
}

void cloudLines(std::vector<std::string>& lines, const View& view, const RenderOptions& options) {
  size_t machines = std::count_if(view.cloud.begin(), view.cloud.end(),
                                  [](const CloudRow& r) { return r.kind == "AzureMachine"; });
  for (const CloudRow& row : view.cloud) {
    if (row.kind == "AzureMachine" && machines >= kCompactMachinesFrom) {
      cloudLine(lines, row, options);
    } else {
      cloudBlock(lines, row, options);
    }
  }
}

}  // namespace

std::string bar(const Usage& usage, int cells) {
  int filled = 0;
  if (usage.allocatable > 0) {
    double share = static_cast<double>(usage.requested) / static_cast<double>(usage.allocatable);
    filled = static_cast<int>(std::lround(std::clamp(share, 0.0, 1.0) * cells));
  }
  std::string out;
  for (int i = 0; i < cells; ++i) {
    out += i < filled ? "█" : "░";
  }
  return out;
}

std::string age(core::TimePoint now, const core::Time& since) {
  if (since.isZero()) {
    return "-";
  }
  auto seconds = std::chrono::duration_cast<std::chrono::seconds>(now - since.point()).count();
  seconds = std::max<int64_t>(seconds, 0);
  if (seconds < 120) {
    return std::to_string(seconds) + "s";
  }
  if (seconds < 120 * 60) {
    return std::to_string(seconds / 60) + "m";
  }
  if (seconds < 48 * 3600) {
    return std::to_string(seconds / 3600) + "h";
  }
  return std::to_string(seconds / 86400) + "d";
}

std::string cores(int64_t milli) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", static_cast<double>(milli) / 1000.0);
  std::string out = text;
  out.erase(out.find_last_not_of('0') + 1);
  if (out.back() == '.') {
    out.pop_back();
  }
  return out;
}

std::string bytes(int64_t value) {
  static constexpr const char* kUnits[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi"};
  double scaled = static_cast<double>(value);
  size_t unit = 0;
  while (scaled >= 1024 && unit + 1 < std::size(kUnits)) {
    scaled /= 1024;
    ++unit;
  }
  char text[32];
  if (std::fabs(scaled - std::round(scaled)) < 0.05) {
    std::snprintf(text, sizeof text, "%.0f%s", std::round(scaled), kUnits[unit]);
  } else {
    std::snprintf(text, sizeof text, "%.1f%s", scaled, kUnits[unit]);
  }
  return text;
}

std::string fitToRows(const std::string& text, int rows) {
  if (rows <= 1) {
    return text;
  }
  size_t pos = 0;
  for (int line = 0; line < rows - 1; ++line) {
    pos = text.find('\n', pos);
    if (pos == std::string::npos) {
      return text;
    }
    ++pos;
  }
  if (pos >= text.size()) {
    return text;
  }
  size_t hidden = static_cast<size_t>(std::count(text.begin() + pos, text.end(), '\n'));
  return text.substr(0, pos) + "... " + std::to_string(hidden) + " more lines";
}

std::string render(const View& view, const RenderOptions& options) {
  std::vector<std::string> lines{summaryLine(view.summary), ""};
  nodeLines(lines, view, options);
  if (!view.pools.empty()) {
    lines.emplace_back();
    poolLines(lines, view, options.color);
  }
  if (!view.cloud.empty()) {
    lines.emplace_back();
    cloudLines(lines, view, options);
  }
  std::string out;
  for (const std::string& line : lines) {
    out += cut(line, options.width, options.color) + "\n";
  }
  return out;
}

}  // namespace nodewright::cmd::status
