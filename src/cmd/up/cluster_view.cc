#include "cmd/up/cluster_view.h"

#include <condition_variable>
#include <fstream>
#include <mutex>
#include <sstream>

#include "api/yaml.h"

namespace nodewright::cmd::up {

namespace {

const api::Json* findCondition(const api::Json& object, std::string_view type) {
  const auto status = object.find("status");
  if (status == object.end() || !status->contains("conditions")) {
    return nullptr;
  }
  for (const api::Json& c : (*status)["conditions"]) {
    if (c.value("type", "") == type) {
      return &c;
    }
  }
  return nullptr;
}

}  // namespace

core::Result<std::vector<std::string>> applyFile(kube::Client& client,
                                                 const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) {
    return core::fail(core::Error::notFound("cannot read " + file.string()));
  }
  std::stringstream text;
  text << in.rdbuf();
  auto documents = api::parseDocuments(text.str());
  if (!documents) {
    return core::fail(documents.error().wrap(file.string()));
  }
  std::vector<std::string> applied;
  for (const api::Document& doc : *documents) {
    const api::Json& value = doc.value;
    const api::KindInfo* kind =
        client.registry().find(value.value("apiVersion", ""), value.value("kind", ""));
    if (kind == nullptr) {
      return core::fail(core::Error::invalid(file.string() + ": unknown kind " +
                                             value.value("apiVersion", "") + "/" +
                                             value.value("kind", "")));
    }
    const api::Json& meta = value["metadata"];
    const std::string name = meta.value("name", "");
    const std::string ns = kind->namespaced ? meta.value("namespace", "default") : "";
    kube::PatchOptions options;
    options.fieldManager = "nodewright-demo";
    options.force = true;
    auto patched = client.patch(*kind, ns, name, kube::PatchType::Apply, value.dump(), options);
    if (!patched) {
      return core::fail(patched.error().toError().wrap(
          file.string() + ": " + value["kind"].get<std::string>() + "/" + name));
    }
    applied.push_back(kind->kind + "/" + name);
  }
  return applied;
}

std::vector<api::Json> listJson(kube::Client& client, std::string_view resource,
                                const std::string& ns, const std::string& labelSelector) {
  const api::KindInfo* kind = client.registry().lookup(resource);
  if (kind == nullptr) {
    return {};
  }
  kube::ListOptions options;
  options.labelSelector = labelSelector;
  auto listed = client.list(*kind, ns, options);
  if (!listed) {
    return {};
  }
  std::vector<api::Json> out;
  out.reserve(listed->items.size());
  for (const api::Object& item : listed->items) {
    out.push_back(item.toJson());
  }
  return out;
}

bool conditionTrue(const api::Json& object, std::string_view type) {
  const api::Json* c = findCondition(object, type);
  return c != nullptr && c->value("status", "") == "True";
}

std::string conditionMessage(const api::Json& object, std::string_view type) {
  const api::Json* c = findCondition(object, type);
  return c == nullptr ? "" : c->value("message", "");
}

core::Status awaitCondition(std::string_view what, std::chrono::milliseconds timeout,
                            std::stop_token stop, const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::mutex mu;
  std::condition_variable_any cv;
  while (!done()) {
    if (stop.stop_requested()) {
      return core::fail(
          core::Error::internal(std::string("stopped while waiting for ") + std::string(what)));
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      return core::fail(core::Error::internal("timed out after " +
                                              std::to_string(timeout.count() / 1000) +
                                              " s waiting for " + std::string(what)));
    }
    std::unique_lock lock(mu);
    cv.wait_for(lock, stop, std::chrono::milliseconds(250), [] { return false; });
  }
  return {};
}

}  // namespace nodewright::cmd::up
