// Ec2Emulator's state file document (state.h).
#include <exception>

#include "emulators/ec2/emulator.h"
#include "emulators/ec2/state.h"

namespace nodewright::emulators::ec2 {

core::Result<api::Json> Ec2Emulator::saveState() {
  // The time first: every stored time point is at or before it.
  const core::TimePoint now = engine_.time().now();
  auto store = encodeStore(engine_.store().contents(), ec2AttributeCodecs());
  if (!store) {
    return core::fail(store.error());
  }
  api::Json document{{"format", kEc2StateFormat},
                     {"version", kEc2StateVersion},
                     {"savedAt", now},
                     {"store", std::move(*store)}};
  std::lock_guard lock(ssmMu_);
  document["ssmParameters"] = world_.ssmParameters;
  document["ssmVersions"] = world_.ssmVersions;
  return document;
}

core::Status Ec2Emulator::restoreState(const api::Json& state) {
  core::TimePoint savedAt;
  std::map<std::string, std::string, std::less<>> parameters;
  std::map<std::string, int64_t, std::less<>> versions;
  try {
    savedAt = state.at("savedAt").get<core::TimePoint>();
    parameters = state.value("ssmParameters", parameters);
    versions = state.value("ssmVersions", versions);
  } catch (const std::exception& e) {
    return core::fail(core::Error::invalid(e.what()));
  }
  if (!state.contains("store")) {
    return core::fail(core::Error::invalid("no store"));
  }
  auto contents = decodeStore(state["store"], ec2AttributeCodecs());
  if (!contents) {
    return core::fail(contents.error());
  }
  if (auto restored = engine_.store().restore(std::move(*contents)); !restored) {
    return core::fail(restored.error());
  }
  // Before the first request: the restored transitions fall due on the continued clock.
  engine_.continueFrom(savedAt);
  std::lock_guard lock(ssmMu_);
  world_.ssmParameters = std::move(parameters);
  world_.ssmVersions = std::move(versions);
  return core::ok();
}

uint64_t Ec2Emulator::stateGeneration() {
  return engine_.store().generation() + ssmChanges_.load(std::memory_order_relaxed);
}

}  // namespace nodewright::emulators::ec2
