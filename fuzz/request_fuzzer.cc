// Feeds arbitrary request bodies and query strings through what the embedded API server does
// with untrusted input before storage: body decoding by content type, the four patch engines,
// Kubernetes protobuf bodies, object decoding and validation, and selector parsing. Nothing may
// crash, hang or leak.

#include <cstddef>
#include <cstdint>
#include <string>

#include "api/labels.h"
#include "api/object.h"
#include "apiserver/patch/apply.h"
#include "apiserver/patch/json_patch.h"
#include "apiserver/patch/merge_patch.h"
#include "apiserver/patch/strategic_merge.h"
#include "apiserver/protobuf/protobuf.h"
#include "apiserver/rest/request.h"
#include "apiserver/table/field_selector.h"
#include "core/stack_thread.h"
#include "http/server.h"

using nodewright::api::Json;
namespace apiserver = nodewright::apiserver;
namespace http = nodewright::http;

namespace {

const Json& livePod() {
  static const Json pod = Json::parse(R"({"apiVersion":"v1","kind":"Pod",
    "metadata":{"name":"p","namespace":"default","labels":{"a":"b"},"finalizers":["x"]},
    "spec":{"containers":[{"name":"c","image":"i","env":[{"name":"A","value":"1"}]}]},
    "status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}})");
  return pod;
}

}  // namespace

static int fuzzOne(const uint8_t* data, size_t size) {
  if (size == 0) {
    return 0;
  }
  static const char* types[] = {"application/json",
                                "application/yaml",
                                "application/json-patch+json",
                                "application/merge-patch+json",
                                "application/strategic-merge-patch+json",
                                "application/apply-patch+yaml"};
  const uint8_t mode = data[0];
  http::Request request;
  request.method = "PATCH";
  request.headers["content-type"] = types[mode % 6];
  request.body.assign(reinterpret_cast<const char*>(data + 1), size - 1);

  if (mode >= 0xe0 && mode < 0xf0) {
    (void)apiserver::protobuf::protobufToJson(request.body);
    return 0;
  }
  if (mode >= 0xf0) {
    (void)http::percentDecode(request.body, true);
    (void)nodewright::api::parseSelector(request.body);
    (void)apiserver::FieldSelector::parse(request.body);
    return 0;
  }
  auto body = apiserver::rest::parseBody(request);
  if (!body) {
    return 0;
  }
  switch (mode % 6) {
    case 2:
      (void)apiserver::patch::applyJsonPatch(livePod(), *body);
      break;
    case 3:
      (void)apiserver::patch::applyMergePatch(livePod(), *body);
      break;
    case 4:
      (void)apiserver::patch::applyStrategicMergePatch("", "Pod", livePod(), *body);
      break;
    case 5:
      (void)apiserver::patch::applyServerSide(livePod(), *body, Json::object(), "", "Pod");
      break;
    default:
      (void)nodewright::api::decodeObject(*body, nodewright::api::builtinRegistry());
  }
  return 0;
}

// Bodies may nest as deep as kube allows (10,000 levels); decode them on a stack sized for that,
// as the API server's request threads do.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nodewright::core::runWithDeepStack([&] { fuzzOne(data, size); });
  return 0;
}
