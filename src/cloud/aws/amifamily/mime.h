#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"

// Multi-part MIME user data as cloud-init and nodeadm read it, and as Karpenter writes it:
// boundary "//", LF line endings.
namespace nodewright::cloud::aws::amifamily {

inline constexpr const char* kContentTypeShellScript = "text/x-shellscript; charset=\"us-ascii\"";
inline constexpr const char* kContentTypeNodeConfig = "application/node.eks.aws";

struct MimePart {
  std::vector<std::pair<std::string, std::string>> headers;  // in document order
  std::string content;

  // The Content-Type header's value (name matched without case); empty when absent.
  std::string contentType() const;
};

// A part with only a Content-Type header.
MimePart mimePart(std::string contentType, std::string content);

// User data that announces itself as MIME: it starts, after blank space, with a MIME-Version or
// Content-Type header.
bool looksLikeMime(std::string_view text);

// The parts of a multipart document (CRLF or LF line endings; the preamble and epilogue are
// dropped). Invalid naming spec.userData when it is not one: no Content-Type, not multipart, no
// boundary, a malformed header, or no closing boundary. Messages never quote the content.
core::Result<std::vector<MimePart>> parseMimeArchive(std::string_view text);

// MIME-Version and a multipart/mixed Content-Type, then each part. The boundary is "//" unless
// a part's content holds a line that would read as it.
std::string writeMimeArchive(const std::vector<MimePart>& parts);

}  // namespace nodewright::cloud::aws::amifamily
