#pragma once

#include <functional>
#include <optional>
#include <string>

#include "api/labels.h"
#include "http/server.h"
#include "apiserver/rest/objects.h"
#include "apiserver/table/field_selector.h"

// Selection shared by list, watch and deletecollection.
namespace nodewright::apiserver::rest {

class Selection {
 public:
  static ApiResult<Selection> fromRequest(const http::Request& request, const Resource& resource);
  bool matches(const api::Json& object) const;
  bool empty() const { return !labels_ && !fields_; }
  std::function<bool(const api::Json&)> predicate() const;

 private:
  std::optional<api::LabelSelector> labels_;
  std::optional<FieldSelector> fields_;
};

// Opaque continue tokens: the revision of the first page and the last key returned.
std::string encodeContinue(int64_t revision, const std::string& lastKey);
ApiResult<std::pair<int64_t, std::string>> decodeContinue(const std::string& token);

}  // namespace nodewright::apiserver::rest
