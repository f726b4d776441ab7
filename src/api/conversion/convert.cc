#include "api/conversion/convert.h"

#include "api/conversion/ec2nodeclass_conversion.h"
#include "api/conversion/nodeclaim_conversion.h"
#include "api/conversion/nodepool_conversion.h"

namespace nodewright::api::conversion {
namespace {

template <class T>
Converted<Json> encoded(const Converted<T>& converted) {
  if (!converted) {
    return failed(converted.error());
  }
  return toJson(*converted);
}

FieldErrors kindError(const KindInfo& info, std::string_view detail) {
  return {{"kind", fielderr::invalid(Json(info.kind), detail)}};
}

}  // namespace

core::Error toError(const FieldErrors& errors) {
  std::string message;
  for (const FieldError& e : errors) {
    message += (message.empty() ? "" : "; ") + e.toString();
  }
  return core::Error::invalid(message);
}

ObjectOptions structuralDecodeOptions() {
  ObjectOptions options;
  options.applyDefaults = false;
  options.validate = false;
  options.requireName = false;
  return options;
}

Converted<Json> convertToV1Fields(const Json& seedEraObject, const ObjectOptions& options) {
  DecodedObject decoded = decodeObject(seedEraObject, builtinRegistry(), options);
  if (!decoded.errors.empty()) {
    return failed(std::move(decoded.errors));
  }
  const Object& object = *decoded.object;
  if (const auto* p = object.as<seedera::Provisioner>()) {
    return encoded(toNodePool(*p));
  }
  if (const auto* m = object.as<seedera::Machine>()) {
    return encoded(toNodeClaim(*m));
  }
  if (const auto* t = object.as<seedera::AWSNodeTemplate>()) {
    return encoded(toEC2NodeClass(*t));
  }
  return failed(kindError(object.info(), "not a seed-era kind; nothing to convert"));
}

core::Result<Json> convertToV1(const Json& seedEraObject, const ObjectOptions& options) {
  Converted<Json> out = convertToV1Fields(seedEraObject, options);
  if (!out) {
    return core::fail(toError(out.error()));
  }
  return std::move(*out);
}

Converted<Json> convertFromV1Fields(const Json& v1Object, std::string_view targetApiVersion,
                                    const ObjectOptions& options) {
  DecodedObject decoded = decodeObject(v1Object, builtinRegistry(), options);
  if (!decoded.errors.empty()) {
    return failed(std::move(decoded.errors));
  }
  const Object& object = *decoded.object;
  const std::string source = object.info().apiVersion() + " " + object.info().kind;
  const KindInfo* target = nullptr;
  for (const KindInfo& k : builtinRegistry().kinds()) {
    if (k.convertsTo == source && k.apiVersion() == targetApiVersion) {
      target = &k;
    }
  }
  if (target == nullptr) {
    return failed({{"apiVersion", fielderr::invalid(Json(std::string(targetApiVersion)),
                                                    "no seed-era kind of this version converts "
                                                    "from " +
                                                        source)}});
  }
  if (const auto* p = object.as<karpenter::NodePool>()) {
    return encoded(toProvisioner(*p));
  }
  if (const auto* c = object.as<karpenter::NodeClaim>()) {
    return encoded(toMachine(*c));
  }
  if (const auto* n = object.as<karpenter::EC2NodeClass>()) {
    return encoded(toAWSNodeTemplate(*n));
  }
  return failed(
      kindError(object.info(), "no conversion to " + target->apiVersion() + " " + target->kind));
}

core::Result<Json> convertFromV1(const Json& v1Object, std::string_view targetApiVersion,
                                 const ObjectOptions& options) {
  Converted<Json> out = convertFromV1Fields(v1Object, targetApiVersion, options);
  if (!out) {
    return core::fail(toError(out.error()));
  }
  return std::move(*out);
}

}  // namespace nodewright::api::conversion
