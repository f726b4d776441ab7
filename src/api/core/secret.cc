#include "api/core/secret.h"

#include "api/core/validation.h"

namespace nodewright::api::corev1 {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

namespace {

std::string illegalBase64(size_t offset) {
  return "illegal base64 data at input byte " + std::to_string(offset);
}

std::string tooLong() {
  return "Too long: must have at most " + std::to_string(kMaxDataSize) + " bytes";
}

void validateKeys(const std::map<std::string, std::string>& map, const FieldPath& path,
                  FieldErrors& errors) {
  for (const auto& [key, value] : map) {
    for (const std::string& msg : configMapKeyErrors(key)) {
      errors.push_back({path.key(key).str(), invalidText(key, msg)});
    }
  }
}

// Decodes each value, reporting bad base64; `shown` replaces the value in the message so
// secret material never reaches logs. Returns the total decoded size.
size_t checkBase64(const std::map<std::string, std::string>& map, const FieldPath& path,
                   std::optional<std::string_view> shown, FieldErrors& errors) {
  size_t total = 0;
  for (const auto& [key, value] : map) {
    Base64Result decoded = decodeBase64(value);
    if (decoded.errorOffset) {
      errors.push_back({path.key(key).str(),
                        invalidText(shown ? *shown : value, illegalBase64(*decoded.errorOffset))});
    }
    total += decoded.bytes.size();
  }
  return total;
}

void validateSecret(const Secret& s, const FieldPath& path, FieldErrors& errors) {
  const FieldPath data = path.child("data");
  validateKeys(s.data, data, errors);
  validateKeys(s.stringData, path.child("stringData"), errors);
  size_t total = checkBase64(s.data, data, "<redacted>", errors);
  for (const auto& [key, value] : s.stringData) {
    total += value.size();
  }
  if (total > kMaxDataSize) {
    errors.push_back({data.str(), tooLong()});
  }
  // The well-known types promise consumers certain keys.
  auto requireKey = [&](const char* key) {
    if (!s.data.contains(key) && !s.stringData.contains(key)) {
      errors.push_back({data.key(key).str(), fielderr::required()});
    }
  };
  if (s.type == kSecretTypeTls) {
    requireKey("tls.crt");
    requireKey("tls.key");
  } else if (s.type == kSecretTypeDockerConfigJson) {
    requireKey(".dockerconfigjson");
  } else if (s.type == kSecretTypeSshAuth) {
    requireKey("ssh-privatekey");
  }
}

void validateConfigMap(const ConfigMap& c, const FieldPath& path, FieldErrors& errors) {
  const FieldPath data = path.child("data");
  const FieldPath binary = path.child("binaryData");
  validateKeys(c.data, data, errors);
  validateKeys(c.binaryData, binary, errors);
  size_t total = 0;
  for (const auto& [key, value] : c.data) {
    if (c.binaryData.contains(key)) {
      errors.push_back(
          {data.key(key).str(), invalidText(key, "duplicate of key present in binaryData")});
    }
    total += value.size();
  }
  total += checkBase64(c.binaryData, binary, std::nullopt, errors);
  if (total > kMaxDataSize) {
    errors.push_back({path.str(), tooLong()});
  }
}

}  // namespace

const StructSchema& describe(Tag<Secret>) {
  static const StructSchema s = [] {
    StructBuilder<Secret> b("Secret", "Sensitive data such as passwords, tokens or keys.");
    withTypeMeta(b);
    return b.field<&Secret::type>("type", "How the data is used, e.g. Opaque or kubernetes.io/tls.")
        .defaultsTo(kSecretTypeOpaque)
        .field<&Secret::data>("data", "Secret values, base64-encoded.")
        .field<&Secret::stringData>("stringData",
                                    "Write-only plain-text values merged into data on write.")
        .field<&Secret::immutable>("immutable", "If true, data cannot be changed.")
        .validate(validateSecret)
        .build();
  }();
  return s;
}

const StructSchema& describe(Tag<ConfigMap>) {
  static const StructSchema s = [] {
    StructBuilder<ConfigMap> b("ConfigMap", "Non-confidential configuration data.");
    withTypeMeta(b);
    return b.field<&ConfigMap::data>("data", "UTF-8 configuration values.")
        .field<&ConfigMap::binaryData>("binaryData", "Binary values, base64-encoded.")
        .field<&ConfigMap::immutable>("immutable", "If true, data cannot be changed.")
        .validate(validateConfigMap)
        .build();
  }();
  return s;
}

core::Result<std::string> secretValue(const Secret& secret, std::string_view key) {
  const std::string k(key);
  if (auto it = secret.stringData.find(k); it != secret.stringData.end()) {
    return it->second;
  }
  auto it = secret.data.find(k);
  if (it == secret.data.end()) {
    return core::fail(core::Error::notFound("secret has no key \"" + k + "\""));
  }
  Base64Result decoded = decodeBase64(it->second);
  if (decoded.errorOffset) {
    return core::fail(
        core::Error::invalid("secret key \"" + k + "\": " + illegalBase64(*decoded.errorOffset)));
  }
  return decoded.bytes;
}

}  // namespace nodewright::api::corev1
