#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "api/registry.h"
#include "cmd/command.h"

// What `nodewright up` will run, printed before it starts anything (and all --dry-run does).
namespace nodewright::cmd::up {

struct PlanOptions {
  std::string cloud = "emulated";  // emulated, aws, azure
  bool demo = false;
  std::filesystem::path dataDir;
};

std::vector<std::string> plan(const PlanOptions& options);

// Kinds per group and the problems that would keep an API server from accepting the CRDs; a
// problem is a bug in the model, reported but not fatal, since `up` must always come up.
void summarizeModel(const api::Registry& registry, const std::vector<api::Json>& crds,
                    Context& ctx);

}  // namespace nodewright::cmd::up
