// Feeds arbitrary bytes through the manifest pipeline: YAML/JSON parsing, strict decoding of
// every registered kind, defaulting, validation, hashing and encoding. Besides crashes, leaks
// and hangs it checks one invariant: what we encode decodes again without errors to the same
// encoding (round trip).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "api/codec.h"
#include "api/object.h"
#include "api/yaml.h"
#include "core/stack_thread.h"

using namespace nodewright::api;

static int fuzzOne(const uint8_t* data, size_t size) {
  if (size == 0 || size > 3 * 1024 * 1024) {  // the API server's body limit
    return 0;
  }
  YamlOptions yaml;
  yaml.allowElisions = (data[0] & 1) != 0;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto docs = parseDocuments(text, yaml);
  if (!docs) {
    return 0;
  }
  for (const Document& doc : *docs) {
    ObjectOptions options;
    options.elided = doc.elided;
    DecodedObject decoded = decodeObject(doc.value, builtinRegistry(), options);
    for (const FieldError& e : decoded.errors) {
      (void)e.toString();
    }
    if (!decoded.object) {
      continue;
    }
    const Object& object = *decoded.object;
    nodewright::core::Hasher hasher;
    object.info().type->hash(object.raw(), nullptr, HashOptions{}, hasher);
    Json encoded = object.toJson();
    ObjectOptions again;
    again.applyDefaults = false;
    again.validate = false;
    DecodedObject second = decodeObject(encoded, builtinRegistry(), again);
    if (!second.errors.empty() || !second.object || second.object->toJson() != encoded) {
      std::abort();  // the encoding of a decoded object must decode to itself
    }
    (void)toYaml(encoded);
  }
  return 0;
}

// Bodies may nest as deep as kube allows (10,000 levels); decode them on a stack sized for that,
// as the API server's request threads do.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nodewright::core::runWithDeepStack([&] { fuzzOne(data, size); });
  return 0;
}
