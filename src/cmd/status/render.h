#pragma once

#include <string>

#include "cmd/status/model.h"
#include "core/time.h"

// Turns a status::View into the text of one screen: a summary line, the nodes with CPU and
// memory bars, the NodePools with their limits, and the Azure objects with their conditions and
// futures in flight. Pure: the same view, width and time give the same text.
namespace nodewright::cmd::status {

struct RenderOptions {
  // Lines are cut to this many columns; 0 leaves them whole.
  int width = 0;
  // ANSI colours on bars and states; never any cursor movement (the live loop adds that).
  bool color = false;
  // Ages are measured to here.
  core::TimePoint now;
};

// From this many AzureMachines on, each takes one line (its conditions that are not True and
// its futures) instead of a block.
inline constexpr size_t kCompactMachinesFrom = 20;

std::string render(const View& view, const RenderOptions& options);

// The first rows-1 lines of `text` and a last one saying how many were left out, so that a
// screen of `rows` lines keeps its summary in view; all of it when it fits or rows <= 1.
std::string fitToRows(const std::string& text, int rows);

// Helpers the renderer uses, exposed for their tests.
// "██████░░░░" for requested/allocatable, `cells` wide, rounded to the nearest cell.
std::string bar(const Usage& usage, int cells);
// "5s", "3m", "2h", "4d"; "-" for a zero time.
std::string age(core::TimePoint now, const core::Time& since);
// Cores as "2", "1.5", "0.25"; bytes as "512Mi", "7.5Gi".
std::string cores(int64_t milli);
std::string bytes(int64_t value);

}  // namespace nodewright::cmd::status
