#include "support/kube/objects.h"

#include <thread>

namespace nodewright::kube::testing {

api::corev1::ConfigMap configMap(const std::string& name, std::map<std::string, std::string> data) {
  api::corev1::ConfigMap cm;
  cm.apiVersion = "v1";
  cm.kind = "ConfigMap";
  cm.metadata.name = name;
  cm.metadata.namespace_ = "default";
  cm.data = std::move(data);
  return cm;
}

bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return condition();
}

}  // namespace nodewright::kube::testing
