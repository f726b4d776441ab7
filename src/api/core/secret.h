#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "api/meta.h"
#include "api/reflect/schema.h"
#include "core/error.h"

// core/v1 Secret and ConfigMap. Binary values are held as the base64 text of the manifest, so
// they round-trip byte for byte; value() decodes one.
namespace nodewright::api::corev1 {

inline constexpr const char* kSecretTypeOpaque = "Opaque";
inline constexpr const char* kSecretTypeTls = "kubernetes.io/tls";
inline constexpr const char* kSecretTypeDockerConfigJson = "kubernetes.io/dockerconfigjson";
inline constexpr const char* kSecretTypeSshAuth = "kubernetes.io/ssh-auth";

struct Secret {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  std::string type;
  std::map<std::string, std::string> data;  // base64
  std::map<std::string, std::string> stringData;
  std::optional<bool> immutable;
};
const reflect::StructSchema& describe(reflect::Tag<Secret>);

struct ConfigMap {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  std::map<std::string, std::string> data;
  std::map<std::string, std::string> binaryData;  // base64
  std::optional<bool> immutable;
};
const reflect::StructSchema& describe(reflect::Tag<ConfigMap>);

// The decoded value of `key`, from stringData (which wins, as the API server merges it) or
// data. NotFound when absent, Invalid when data holds bad base64.
core::Result<std::string> secretValue(const Secret& secret, std::string_view key);

// The largest total size of a Secret's or ConfigMap's data (1 MiB).
inline constexpr size_t kMaxDataSize = 1024 * 1024;

}  // namespace nodewright::api::corev1
