#pragma once

#include <filesystem>

#include "api/registry.h"
#include "core/error.h"

namespace nodewright::cmd {

// Writes every generated CRD file and kustomization.yaml into `dir` (created if missing) and
// removes generated files there that the model no longer produces, so the directory matches
// the model exactly; files the generator did not write are left alone. Returns the number of
// CRDs written.
core::Result<size_t> writeCrdFiles(const api::Registry& registry, const std::filesystem::path& dir);

}  // namespace nodewright::cmd
