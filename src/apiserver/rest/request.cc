#include "apiserver/rest/request.h"

#include <algorithm>

#include "api/json_parse.h"
#include "api/yaml.h"
#include "apiserver/protobuf/protobuf.h"
#include "apiserver/rest/query.h"

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
  if (request.body.empty()) {
    return tl::unexpected(errors::badRequest("the request body is empty"));
  }
  if (type == protobuf::kMediaType) {
    // kubectl's typed clients send built-in kinds as Kubernetes protobuf.
    auto object = protobuf::protobufToJson(request.body);
    if (!object) {
      return tl::unexpected(errors::badRequest(object.error().message()));
    }
    return std::move(*object);
  }
  bool yaml = type == "application/yaml" || type == "application/apply-patch+yaml";
  if (!yaml) {
    auto value = api::parseJson(request.body);
    if (!value) {
      return tl::unexpected(
          errors::badRequest("the request body is not valid JSON (content type " +
                             (type.empty() ? std::string("application/json") : type) +
                             "): " + value.error().message()));
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
  if (validation == "Strict") {
    options.fieldValidation = FieldValidation::Strict;
  }
  if (validation == "Ignore") {
    options.fieldValidation = FieldValidation::Ignore;
  }
  options.warnings = warnings;
  return options;
}

ApiResult<DeleteOptions> deleteOptions(const http::Request& request) {
  // apiserver handlers/delete.go reads a DeleteOptions body when there is one and the query
  // parameters only when there is none.
  DeleteOptions options;
  Json body = Json::object();
  if (!request.body.empty()) {
    auto parsed = parseBody(request);
    if (!parsed) {
      return tl::unexpected(parsed.error());
    }
    if (!parsed->is_object()) {
      return tl::unexpected(errors::badRequest("the DeleteOptions body is not an object"));
    }
    body = std::move(*parsed);
  } else {
    auto grace = int64Param(request, "gracePeriodSeconds");
    if (!grace) {
      return tl::unexpected(grace.error());
    }
    if (*grace) {
      body["gracePeriodSeconds"] = **grace;
    }
    if (auto orphan = boolParam(request, "orphanDependents")) {
      body["orphanDependents"] = *orphan;
    }
    if (auto policy = firstParam(request, "propagationPolicy")) {
      body["propagationPolicy"] = *policy;
    }
    auto dryRun = request.query.equal_range("dryRun");
    for (auto it = dryRun.first; it != dryRun.second; ++it) {
      body["dryRun"].push_back(it->second);
    }
  }
  if (auto g = body.find("gracePeriodSeconds"); g != body.end() && g->is_number_integer()) {
    options.gracePeriodSeconds = g->get<int64_t>();
  }
  // validation.ValidateDeleteOptions (apimachinery pkg/apis/meta/v1/validation/validation.go).
  api::FieldErrors problems;
  const Json* policy = body.contains("propagationPolicy") && body["propagationPolicy"].is_string()
                           ? &body["propagationPolicy"]
                           : nullptr;
  const bool orphanSet = body.contains("orphanDependents") && body["orphanDependents"].is_boolean();
  if (orphanSet && policy) {
    problems.push_back(
        {"propagationPolicy", api::fielderr::invalid(*policy,
                                                     "orphanDependents and deletionPropagation "
                                                     "cannot be both set")});
  }
  const std::string policyName = policy ? policy->get<std::string>() : std::string();
  if (policy && policyName != "Foreground" && policyName != "Background" &&
      policyName != "Orphan") {
    problems.push_back(
        {"propagationPolicy",
         api::fielderr::unsupported(*policy, {"Foreground", "Background", "Orphan", "nil"})});
  }
  std::vector<std::string> dryRun;
  if (const Json& list = body.value("dryRun", Json::array()); list.is_array()) {
    for (const auto& value : list) {
      dryRun.push_back(value.is_string() ? value.get<std::string>() : value.dump());
    }
  }
  for (const auto& value : dryRun) {
    if (value != "All") {
      std::string rendered = "[]string{";
      for (size_t i = 0; i < dryRun.size(); ++i) {
        rendered += (i > 0 ? ", " : "") + api::dumpJson(Json(dryRun[i]));
      }
      problems.push_back(
          {"dryRun", "Unsupported value: " + rendered + "}: supported values: \"All\""});
      break;
    }
  }
  if (!problems.empty()) {
    return tl::unexpected(invalidOptions("DeleteOptions", problems));
  }
  options.dryRun = !dryRun.empty();
  if (orphanSet && body["orphanDependents"].get<bool>()) {
    options.propagation = Propagation::Orphan;
  } else if (policyName == "Orphan") {
    options.propagation = Propagation::Orphan;
  } else if (policyName == "Foreground") {
    options.propagation = Propagation::Foreground;
  } else if (policyName == "Background") {
    options.propagation = Propagation::Background;
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
    if (!include) {
      return tl::unexpected(errors::badRequest(include.error().message()));
    }
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
