#pragma once

#include <string>
#include <string_view>

#include "core/error.h"

// Small local files the client configuration points at: kubeconfigs, certificates, tokens.
namespace nodewright::kube {

// The whole file. NotFound when it does not exist; messages name the path and the system's
// reason, never the content (it may be a key or a token).
core::Result<std::string> readLocalFile(const std::string& path);

// `text` without leading and trailing whitespace: token files usually end in a newline.
std::string trimSpace(std::string_view text);

}  // namespace nodewright::kube
