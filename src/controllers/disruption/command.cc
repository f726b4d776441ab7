#include "controllers/disruption/command.h"

#include "api/reflect/json.h"
#include "core/hash.h"

namespace nodewright::controllers::disruption {

std::string encode(const Command& command) {
  api::Json json;
  json["reason"] = command.reason;
  json["phase"] = command.phase;
  json["replacements"] = command.replacements;
  json["started"] = core::Time(command.started).toString();
  if (!command.budget.empty()) {
    json["budget"] = command.budget;
  }
  if (!command.instanceTypes.empty()) {
    json["instanceTypes"] = command.instanceTypes;
  }
  if (!command.capacityType.empty()) {
    json["capacityType"] = command.capacityType;
  }
  if (!command.consolidationType.empty()) {
    json["consolidationType"] = command.consolidationType;
  }
  if (!command.group.empty()) {
    json["group"] = command.group;
  }
  if (!command.lead.empty()) {
    json["lead"] = command.lead;
  }
  return api::dumpJson(json);
}

core::Result<Command> decodeCommand(const std::string& text) {
  api::Json json = api::Json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.is_object()) {
    return core::fail(core::Error::invalid("disruption command: not a JSON object"));
  }
  Command command;
  auto field = [&](const char* name) -> std::string {
    auto it = json.find(name);
    return it != json.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  command.reason = field("reason");
  command.phase = field("phase");
  command.budget = field("budget");
  command.capacityType = field("capacityType");
  command.consolidationType = field("consolidationType");
  command.lead = field("lead");
  for (auto [name, into] : {std::pair{"instanceTypes", &command.instanceTypes},
                            std::pair{"replacements", &command.replacements},
                            std::pair{"group", &command.group}}) {
    auto it = json.find(name);
    if (it == json.end() || !it->is_array()) {
      continue;
    }
    for (const auto& item : *it) {
      if (!item.is_string()) {
        return core::fail(
            core::Error::invalid(std::string("disruption command: ") + name + ": not names"));
      }
      into->push_back(item.get<std::string>());
    }
  }
  auto started = core::Time::parse(field("started"));
  if (!started) {
    return core::fail(
        core::Error::invalid("disruption command: started: " + started.error().message()));
  }
  command.started = started->point();
  if (command.reason.empty() || command.phase.empty()) {
    return core::fail(core::Error::invalid("disruption command: reason and phase are required"));
  }
  return command;
}

std::string replacementName(const std::string& pool, const std::string& candidateUid,
                            core::TimePoint started, size_t index) {
  core::Hasher hasher;
  hasher.addString(candidateUid);
  hasher.addU64(static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::seconds>(started.time_since_epoch()).count()));
  hasher.addU64(index);
  // Kubernetes' generateName alphabet (no vowels, no look-alikes), but ten characters where
  // generateName makes five: a replacement's name never collides with a provisioned claim's.
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  uint64_t bits = hasher.value();
  std::string suffix;
  for (int i = 0; i < 10; ++i) {
    suffix += kAlphabet[bits % (sizeof(kAlphabet) - 1)];
    bits /= sizeof(kAlphabet) - 1;
  }
  return pool + "-" + suffix;
}

}  // namespace nodewright::controllers::disruption
