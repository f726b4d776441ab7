#pragma once

#include <atomic>
#include <filesystem>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>

#include "apiserver/storage/store.h"

// A fresh directory per test for store files, and small object builders.
namespace nodewright::apiserver::storage::testing {

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("nw-store-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline api::Json pod(const std::string& name, const std::string& ownerUid = "") {
  api::Json object = {{"apiVersion", "v1"},
                      {"kind", "Pod"},
                      {"metadata", {{"name", name}, {"namespace", "default"}}},
                      {"spec", {{"nodeName", "n1"}}}};
  if (!ownerUid.empty()) {
    object["metadata"]["ownerReferences"] = api::Json::array(
        {{{"apiVersion", "apps/v1"}, {"kind", "ReplicaSet"}, {"name", "rs"}, {"uid", ownerUid}}});
  }
  return object;
}

inline WriteOp put(std::string key, api::Json object, int64_t expect = WriteOp::kAny) {
  WriteOp op;
  op.kind = WriteOp::Kind::Put;
  op.key = std::move(key);
  op.object = std::move(object);
  op.expectRevision = expect;
  return op;
}

inline WriteOp create(std::string key, api::Json object) {
  return put(std::move(key), std::move(object), WriteOp::kMustNotExist);
}

inline WriteOp remove(std::string key, int64_t expect = WriteOp::kAny) {
  WriteOp op;
  op.kind = WriteOp::Kind::Delete;
  op.key = std::move(key);
  op.expectRevision = expect;
  return op;
}

}  // namespace nodewright::apiserver::storage::testing
