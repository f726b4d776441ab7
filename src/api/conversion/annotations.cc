#include "api/conversion/annotations.h"

#include <array>

namespace nodewright::api::conversion {

std::optional<std::string> takeAnnotation(ObjectMeta& metadata, std::string_view key) {
  auto it = metadata.annotations.find(std::string(key));
  if (it == metadata.annotations.end()) {
    return std::nullopt;
  }
  std::string value = std::move(it->second);
  metadata.annotations.erase(it);
  return value;
}

std::optional<Json> takeJsonAnnotation(ObjectMeta& metadata, std::string_view key,
                                       FieldErrors& errors) {
  std::optional<std::string> text = takeAnnotation(metadata, key);
  if (!text) {
    return std::nullopt;
  }
  Json value = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) {
    errors.push_back({FieldPath("metadata").child("annotations").key(key).str(),
                      fielderr::invalid(Json(*text), "must be JSON written by the conversion")});
    return std::nullopt;
  }
  return value;
}

void dropConversionAnnotations(ObjectMeta& metadata) {
  constexpr std::array<std::string_view, 2> kPrefixes = {
      "compatibility.karpenter.sh/v1alpha5-", "compatibility.karpenter.k8s.aws/v1alpha1-"};
  for (auto it = metadata.annotations.begin(); it != metadata.annotations.end();) {
    bool ours = false;
    for (std::string_view prefix : kPrefixes) {
      ours = ours || it->first.rfind(prefix, 0) == 0;
    }
    it = ours ? metadata.annotations.erase(it) : std::next(it);
  }
}

}  // namespace nodewright::api::conversion
