#include "emulators/engine/stats.h"

#include "emulators/engine/resource_store.h"

namespace nodewright::emulators {

void Stats::recordRequest(std::string_view action, std::string_view errorCode) {
  std::lock_guard lock(mu_);
  auto it = actions_.find(action);
  if (it == actions_.end()) {
    it = actions_.emplace(std::string(action), ActionCounts{}).first;
  }
  ++it->second.count;
  if (!errorCode.empty()) {
    auto code = it->second.errors.find(errorCode);
    if (code == it->second.errors.end()) {
      code = it->second.errors.emplace(std::string(errorCode), 0).first;
    }
    ++code->second;
  }
}

void Stats::recordCreate(std::string_view clientToken) {
  std::lock_guard lock(mu_);
  auto it = creates_.find(clientToken);
  if (it == creates_.end()) {
    it = creates_.emplace(std::string(clientToken), 0).first;
  }
  ++it->second;
}

uint64_t Stats::requests(std::string_view action) const {
  std::lock_guard lock(mu_);
  auto it = actions_.find(action);
  return it == actions_.end() ? 0 : it->second.count;
}

uint64_t Stats::errors(std::string_view action, std::string_view errorCode) const {
  std::lock_guard lock(mu_);
  auto it = actions_.find(action);
  if (it == actions_.end()) {
    return 0;
  }
  auto code = it->second.errors.find(errorCode);
  return code == it->second.errors.end() ? 0 : code->second;
}

uint64_t Stats::creates(std::string_view clientToken) const {
  std::lock_guard lock(mu_);
  auto it = creates_.find(clientToken);
  return it == creates_.end() ? 0 : it->second;
}

std::vector<std::string> Stats::duplicateTokens() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& [token, n] : creates_) {
    if (!token.empty() && n > 1) {
      out.push_back(token);
    }
  }
  return out;
}

api::Json Stats::toJson(ResourceStore& store) const {
  // The store first: it takes its own lock, and the two are never held together.
  const auto live = store.liveCounts();
  const auto retained = store.retainedCounts();
  api::Json out = api::Json::object();
  api::Json requests = api::Json::object();
  api::Json creates = api::Json::object();
  {
    std::lock_guard lock(mu_);
    for (const auto& [action, counts] : actions_) {
      api::Json errors = api::Json::object();
      for (const auto& [code, n] : counts.errors) {
        errors[code] = n;
      }
      requests[action] = {{"count", counts.count}, {"errors", std::move(errors)}};
    }
    for (const auto& [token, n] : creates_) {
      creates[token] = n;
    }
  }
  out["requests"] = std::move(requests);
  out["createsByClientToken"] = std::move(creates);
  out["duplicateClientTokens"] = duplicateTokens();
  out["live"] = live;
  out["retained"] = retained;
  return out;
}

}  // namespace nodewright::emulators
