#include "apiserver/rest/request.h"

#include <algorithm>

#include "api/json_parse.h"
#include "api/yaml.h"
#include "apiserver/protobuf/protobuf.h"

namespace nodewright::apiserver::rest {

using api::Json;

std::string mediaType(const std::string& contentType) {
  std::string type = contentType.substr(0, contentType.find(';'));
  type.erase(std::remove_if(type.begin(), type.end(), ::isspace), type.end());
  std::transform(type.begin(), type.end(), type.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return type;
}

ApiResult<Json> parseBody(const http::Request& request) {
  std::string type = mediaType(request.header("content-type"));
  if (request.body.empty()) return tl::unexpected(errors::badRequest("the request body is empty"));
  if (type == protobuf::kMediaType) {
    // kubectl's typed clients send built-in kinds as Kubernetes protobuf.
    auto object = protobuf::protobufToJson(request.body);
    if (!object) return tl::unexpected(errors::badRequest(object.error().message()));
    return std::move(*object);
  }
  bool yaml = type == "application/yaml" || type == "application/apply-patch+yaml";
  if (!yaml) {
    auto value = api::parseJson(request.body);
    if (!value) {
      return tl::unexpected(errors::badRequest(
          "the request body is not valid JSON (content type " +
          (type.empty() ? std::string("application/json") : type) + "): " + value.error().message()));
    }
    return std::move(*value);
  }
  auto documents = api::parseDocuments(request.body);
  if (!documents) {
    return tl::unexpected(
        errors::badRequest("error decoding YAML: " + documents.error().message()));
  }
  if (documents->size() != 1) {
    return tl::unexpected(errors::badRequest("the request body must hold exactly one document"));
  }
  auto& document = documents->front();
  if (!document.errors.empty()) {
    return tl::unexpected(
        errors::badRequest("error decoding YAML: " + document.errors.front().toString()));
  }
  return std::move(document.value);
}

WriteOptions writeOptions(const http::Request& request, std::vector<std::string>* warnings) {
  WriteOptions options;
  options.dryRun = request.param("dryRun") == "All";
  std::string validation = request.param("fieldValidation");
  if (validation == "Strict") options.fieldValidation = FieldValidation::Strict;
  if (validation == "Ignore") options.fieldValidation = FieldValidation::Ignore;
  options.warnings = warnings;
  return options;
}

ApiResult<DeleteOptions> deleteOptions(const http::Request& request) {
  DeleteOptions options;
  Json body = Json::object();
  if (!request.body.empty()) {
    auto parsed = parseBody(request);
    if (!parsed) return tl::unexpected(parsed.error());
    if (!parsed->is_object()) {
      return tl::unexpected(errors::badRequest("the DeleteOptions body is not an object"));
    }
    body = std::move(*parsed);
  }
  auto dryRun = body.value("dryRun", Json::array());
  options.dryRun =
      request.param("dryRun") == "All" ||
      (dryRun.is_array() && std::find(dryRun.begin(), dryRun.end(), Json("All")) != dryRun.end());
  if (auto g = body.find("gracePeriodSeconds"); g != body.end() && g->is_number_integer()) {
    options.gracePeriodSeconds = g->get<int64_t>();
  }
  if (request.hasParam("gracePeriodSeconds")) {
    try {
      options.gracePeriodSeconds = std::stoll(request.param("gracePeriodSeconds"));
    } catch (const std::exception&) {
      return tl::unexpected(errors::badRequest("gracePeriodSeconds: not an integer"));
    }
  }
  std::string policy = request.param("propagationPolicy");
  if (policy.empty()) policy = body.value("propagationPolicy", "");
  if (body.value("orphanDependents", false) || request.param("orphanDependents") == "true") {
    policy = "Orphan";
  }
  if (policy == "Orphan") {
    options.propagation = Propagation::Orphan;
  } else if (policy == "Foreground") {
    options.propagation = Propagation::Foreground;
  } else if (policy == "Background") {
    options.propagation = Propagation::Background;
  } else if (!policy.empty()) {
    return tl::unexpected(errors::badRequest("propagationPolicy: Unsupported value: \"" + policy +
                                             "\": supported values: \"Foreground\", "
                                             "\"Background\", \"Orphan\""));
  }
  const Json preconditions = body.value("preconditions", Json::object());
  options.preconditionUid = preconditions.value("uid", "");
  options.preconditionResourceVersion = preconditions.value("resourceVersion", "");
  return options;
}

bool wantsTable(const http::Request& request) {
  std::string accept = request.header("accept");
  return accept.find("as=Table") != std::string::npos;
}

ApiResult<TableOptions> tableOptions(const http::Request& request) {
  TableOptions options;
  if (request.hasParam("includeObject")) {
    auto include = parseIncludeObject(request.param("includeObject"));
    if (!include) return tl::unexpected(errors::badRequest(include.error().message()));
    options.includeObject = *include;
  }
  if (request.header("accept").find("v=v1beta1") != std::string::npos &&
      request.header("accept").find("v=v1;") == std::string::npos) {
    options.apiVersion = "meta.k8s.io/v1beta1";
  }
  return options;
}

http::Response objectResponse(int code, const Json& object,
                              const std::vector<std::string>& warnings) {
  http::Response response = jsonResponse(code, object);
  for (const auto& w : warnings) {
    response.headers.emplace_back("Warning", "299 - " + api::dumpJson(Json(w)));
  }
  return response;
}

}  // namespace nodewright::apiserver::rest
