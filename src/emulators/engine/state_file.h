#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "api/reflect/json.h"
#include "core/error.h"

// An emulator's state file: one JSON document {"format": ..., "version": n, ...} that a
// restarted emulator continues from. Written whole and atomically, so a reader finds the
// previous complete file or the new one, never a mix.
namespace nodewright::emulators {

// nullopt when `path` does not exist. Otherwise the document, or Invalid with a message that
// starts with the path: unreadable, not JSON, another format, or a version other than
// `version` (a file is never converted or overwritten behind its owner's back).
core::Result<std::optional<api::Json>> readStateFile(const std::string& path,
                                                     std::string_view format, int64_t version);

// Writes `document` to path + ".tmp" (mode 0600: launch data may hold user data), fsyncs it,
// renames it over `path` and fsyncs the directory. Internal, naming the path, on failure; the
// previous file is then untouched.
core::Status writeStateFile(const std::string& path, const api::Json& document);

}  // namespace nodewright::emulators
