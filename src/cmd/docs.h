#pragma once

#include "cmd/command.h"

namespace nodewright::cmd {

// `docs --output-dir DIR`: writes the generated reference (cmd/reference/reference.h) for the
// command tree makeApp() builds and the context's resource model.
void addDocsCommand(CLI::App& app, Context& ctx, Action& action);

}  // namespace nodewright::cmd
