#pragma once

#include <string>

#include "core/error.h"

namespace nodewright::apiserver {

// The data directory holds the object store (Secrets among its objects), the kubeconfig with
// the bearer token and the private keys, so only its owner may read it. prepareDataDir creates
// it 0700 and tightens an existing, more open one; the store's files and the kubeconfig become
// 0600, and the store file is created 0600 before SQLite opens it (SQLite gives its WAL and
// shared-memory files the database file's mode). A shared directory (sticky bit, like /tmp) is
// refused rather than closed to its other users. Internal when a mode cannot be set.
core::Status prepareDataDir(const std::string& dir);

// The file names under the data directory.
inline constexpr const char* kStoreFile = "state.db";
inline constexpr const char* kKubeconfigFile = "kubeconfig";

}  // namespace nodewright::apiserver
