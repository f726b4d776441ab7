#include "apiserver/protobuf/protobuf.h"

#include <string>

#include "apiserver/protobuf/message_decoder.h"
#include "apiserver/protobuf/messages.h"
#include "apiserver/protobuf/scalars.h"
#include "apiserver/protobuf/wire_reader.h"

namespace nodewright::apiserver::protobuf {
namespace {

constexpr std::string_view kMagic{"k8s\0", 4};

struct KindEntry {
  std::string_view apiVersion;
  std::string_view kind;
  const MessageDescriptor* type;
};

constexpr KindEntry kKinds[] = {
    {"v1", "Namespace", &kNamespace},
    {"v1", "ConfigMap", &kConfigMap},
    {"v1", "Secret", &kSecret},
    {"v1", "ServiceAccount", &kServiceAccount},
    {"v1", "Pod", &kPod},
    {"apps/v1", "Deployment", &kDeployment},
    {"policy/v1", "Eviction", &kEviction},
    {"policy/v1", "PodDisruptionBudget", &kPodDisruptionBudget},
};

struct Envelope {
  std::string apiVersion;
  std::string kind;
  std::string_view raw;
  std::string contentEncoding;
};

core::Error invalid(std::string message) {
  return core::Error::invalid("protobuf: " + std::move(message));
}

core::Status readTypeMeta(std::string_view bytes, Envelope& envelope) {
  WireReader reader(bytes);
  while (!reader.atEnd()) {
    auto tag = reader.readTag();
    if (!tag) {
      return core::fail(tag.error());
    }
    if ((tag->number == 1 || tag->number == 2) && tag->type == WireType::LengthDelimited) {
      auto text = reader.readLengthDelimited();
      if (!text) {
        return core::fail(text.error());
      }
      (tag->number == 1 ? envelope.apiVersion : envelope.kind) = validUtf8(*text);
    } else if (auto skipped = reader.skip(tag->type); !skipped) {
      return core::fail(skipped.error());
    }
  }
  return core::ok();
}

core::Result<Envelope> readEnvelope(std::string_view bytes) {
  Envelope envelope;
  WireReader reader(bytes);
  while (!reader.atEnd()) {
    auto tag = reader.readTag();
    if (!tag) {
      return core::fail(tag.error());
    }
    if (tag->number > 4 || tag->type != WireType::LengthDelimited) {
      if (auto skipped = reader.skip(tag->type); !skipped) {
        return core::fail(skipped.error());
      }
      continue;
    }
    auto value = reader.readLengthDelimited();
    if (!value) {
      return core::fail(value.error());
    }
    if (tag->number == 1) {
      if (auto read = readTypeMeta(*value, envelope); !read) {
        return core::fail(read.error());
      }
    } else if (tag->number == 2) {
      envelope.raw = *value;
    } else if (tag->number == 3) {
      envelope.contentEncoding = validUtf8(*value);
    }
  }
  return envelope;
}

}  // namespace

const MessageDescriptor* findKind(std::string_view apiVersion, std::string_view kind) {
  if (kind == "DeleteOptions") {
    return &kDeleteOptions;
  }
  for (const KindEntry& entry : kKinds) {
    if (entry.apiVersion == apiVersion && entry.kind == kind) {
      return entry.type;
    }
  }
  return nullptr;
}

core::Result<api::Json> protobufToJson(std::string_view body) {
  if (!body.starts_with(kMagic)) {
    return core::fail(invalid("the body does not start with the Kubernetes protobuf prefix"));
  }
  auto envelope = readEnvelope(body.substr(kMagic.size()));
  if (!envelope) {
    return core::fail(invalid("runtime.Unknown: " + envelope.error().message()));
  }
  if (!envelope->contentEncoding.empty()) {
    return core::fail(
        invalid("unsupported content encoding \"" + envelope->contentEncoding + "\""));
  }
  if (envelope->kind.empty()) {
    return core::fail(invalid("the object has no kind"));
  }
  const MessageDescriptor* type = findKind(envelope->apiVersion, envelope->kind);
  if (type == nullptr) {
    return core::fail(invalid("no kind \"" + envelope->kind + "\" is registered for version \"" +
                              envelope->apiVersion + "\""));
  }
  try {
    auto object = decodeMessage(envelope->raw, *type);
    if (!object) {
      return core::fail(object.error());
    }
    api::Json result = api::Json::object();
    result["kind"] = envelope->kind;
    result["apiVersion"] = envelope->apiVersion;
    for (auto& [key, value] : object->items()) {
      result[key] = std::move(value);
    }
    return result;
  } catch (const std::exception& e) {
    return core::fail(core::Error::internal(std::string("protobuf: ") + e.what()));
  }
}

}  // namespace nodewright::apiserver::protobuf
