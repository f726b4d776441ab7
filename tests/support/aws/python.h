#pragma once

#include <string>
#include <vector>

#include "core/error.h"

// Runs Python scripts that drive botocore, the reference AWS client, from tests.
namespace nodewright::aws::testing {

// Runs `script` with the default python3 and `args`, returning its stdout. Internal error when
// it cannot start or exits non-zero (its stderr goes to the test's stderr).
core::Result<std::string> runPython(const std::string& script,
                                    const std::vector<std::string>& args = {});

// Writes `content` to a fresh temporary file and returns its path; the caller removes it.
std::string writeTempFile(const std::string& content, const std::string& suffix);

}  // namespace nodewright::aws::testing
