#include "cloud/aws/amifamily/mime.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "core/text.h"

namespace nodewright::cloud::aws::amifamily {
namespace {

core::Error invalid(const std::string& what) {
  return core::Error::invalid("spec.userData: " + what);
}

std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// Reads "Name: value" lines (with folded continuations) from lines[at] up to the blank line
// that ends them, leaving `at` after it. `where` names the block in errors.
core::Result<std::vector<std::pair<std::string, std::string>>> readHeaders(
    const std::vector<std::string_view>& lines, size_t& at, const std::string& where) {
  std::vector<std::pair<std::string, std::string>> headers;
  for (; at < lines.size(); ++at) {
    std::string_view line = lines[at];
    if (line.empty()) {
      ++at;
      return headers;
    }
    if ((line.front() == ' ' || line.front() == '\t') && !headers.empty()) {
      headers.back().second += " " + std::string(core::trimSpace(line));
      continue;
    }
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0 ||
        core::trimSpace(line.substr(0, colon)).empty()) {
      return core::fail(invalid(fmt::format("{}: malformed MIME header line", where)));
    }
    headers.emplace_back(std::string(core::trimSpace(line.substr(0, colon))),
                         std::string(core::trimSpace(line.substr(colon + 1))));
  }
  return core::fail(invalid(fmt::format("{}: no blank line after the MIME headers", where)));
}

// The boundary parameter of a multipart Content-Type, unquoted; empty when it has none.
std::string boundaryOf(std::string_view contentType) {
  size_t at = 0;
  while ((at = contentType.find(';', at)) != std::string_view::npos) {
    ++at;
    std::string_view param = core::trimSpace(contentType.substr(at));
    const size_t eq = param.find('=');
    if (eq == std::string_view::npos ||
        !core::equalsIgnoreCase(core::trimSpace(param.substr(0, eq)), "boundary")) {
      continue;
    }
    std::string_view value = core::trimSpace(param.substr(eq + 1));
    if (value.starts_with('"')) {
      const size_t close = value.find('"', 1);
      return close == std::string_view::npos ? "" : std::string(value.substr(1, close - 1));
    }
    return std::string(core::trimSpace(value.substr(0, value.find(';'))));
  }
  return "";
}

bool isDelimiter(std::string_view line, const std::string& boundary, bool& closing) {
  line = core::trimSpace(line);
  if (!line.starts_with("--") || line.substr(2, boundary.size()) != boundary) {
    return false;
  }
  std::string_view rest = line.substr(2 + boundary.size());
  closing = rest == "--";
  return rest.empty() || closing;
}

std::string join(const std::vector<std::string_view>& lines, size_t from, size_t to) {
  std::string out;
  for (size_t i = from; i < to; ++i) {
    if (i > from) {
      out += '\n';
    }
    out += lines[i];
  }
  return out;
}

}  // namespace

std::string MimePart::contentType() const {
  for (const auto& [name, value] : headers) {
    if (core::equalsIgnoreCase(name, "Content-Type")) {
      return value;
    }
  }
  return "";
}

MimePart mimePart(std::string contentType, std::string content) {
  return {{{"Content-Type", std::move(contentType)}}, std::move(content)};
}

bool looksLikeMime(std::string_view text) {
  text = core::trimSpace(text);
  return text.starts_with("MIME-Version:") || text.starts_with("Content-Type:");
}

core::Result<std::vector<MimePart>> parseMimeArchive(std::string_view text) {
  std::string normalized;
  normalized.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (!(text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n')) {
      normalized += text[i];
    }
  }
  const std::vector<std::string_view> lines = splitLines(core::trimSpace(normalized));
  size_t at = 0;
  auto headers = readHeaders(lines, at, "the document");
  if (!headers) {
    return core::fail(headers.error());
  }
  MimePart top{std::move(*headers), ""};
  const std::string contentType = top.contentType();
  if (contentType.empty()) {
    return core::fail(invalid("the MIME document has no Content-Type header"));
  }
  const std::string_view mediaType = core::trimSpace(
      std::string_view(contentType).substr(0, std::min(contentType.find(';'), contentType.size())));
  if (!core::equalsIgnoreCase(mediaType.substr(0, std::min<size_t>(10, mediaType.size())),
                              "multipart/")) {
    return core::fail(invalid("the MIME document is not multipart"));
  }
  const std::string boundary = boundaryOf(contentType);
  if (boundary.empty()) {
    return core::fail(invalid("the multipart Content-Type has no boundary"));
  }
  std::vector<MimePart> parts;
  bool closing = false;
  // The preamble, up to the first delimiter, is not part of any part.
  while (at < lines.size() && !isDelimiter(lines[at], boundary, closing)) {
    ++at;
  }
  while (at < lines.size() && !closing) {
    ++at;  // past the delimiter
    const std::string where = fmt::format("MIME part {}", parts.size() + 1);
    auto partHeaders = readHeaders(lines, at, where);
    if (!partHeaders) {
      return core::fail(partHeaders.error());
    }
    const size_t begin = at;
    while (at < lines.size() && !isDelimiter(lines[at], boundary, closing)) {
      ++at;
    }
    if (at == lines.size()) {
      break;
    }
    parts.push_back({std::move(*partHeaders), join(lines, begin, at)});
  }
  if (!closing) {
    return core::fail(invalid(
        fmt::format("the MIME document does not end with its closing boundary --{}--", boundary)));
  }
  return parts;
}

std::string writeMimeArchive(const std::vector<MimePart>& parts) {
  std::string boundary = "//";
  for (int n = 0;; ++n) {
    const std::string line = "--" + boundary;
    const bool clash = std::any_of(parts.begin(), parts.end(), [&](const MimePart& p) {
      return p.content.starts_with(line) || p.content.find("\n" + line) != std::string::npos;
    });
    if (!clash) {
      break;
    }
    boundary = fmt::format("//{}", n);
  }
  std::string out = "MIME-Version: 1.0\n";
  out += fmt::format("Content-Type: multipart/mixed; boundary=\"{}\"\n\n", boundary);
  for (size_t i = 0; i < parts.size(); ++i) {
    out += (i == 0 ? "--" : "\n--") + boundary + "\n";
    for (const auto& [name, value] : parts[i].headers) {
      out += name + ": " + value + "\n";
    }
    out += "\n" + parts[i].content;
  }
  out += "\n--" + boundary + "--\n";
  return out;
}

}  // namespace nodewright::cloud::aws::amifamily
