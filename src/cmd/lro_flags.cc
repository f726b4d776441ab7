#include "cmd/lro_flags.h"

#include <chrono>
#include <utility>

#include <CLI/CLI.hpp>

#include "core/duration.h"

namespace nodewright::cmd {
namespace {

core::Result<std::chrono::milliseconds> positive(const std::string& flag, const std::string& text) {
  auto parsed = core::Duration::parse(text);
  if (!parsed || parsed->isNever()) {
    return core::fail(core::Error::invalid(flag + ": \"" + text +
                                           "\" is not a duration (like 500ms, 12s or 2m)"));
  }
  auto value = std::chrono::duration_cast<std::chrono::milliseconds>(parsed->value());
  if (value <= std::chrono::milliseconds::zero()) {
    return core::fail(core::Error::invalid(flag + ": must be at least 1ms, got \"" + text + "\""));
  }
  return value;
}

// The shortest call timeout that leaves room for a request: the ARM client sends none with less
// than 250 ms left (ArmClientOptions::minRequestTime), and a token may have to be fetched first.
// Below it every call would fail without trying.
constexpr std::chrono::milliseconds kMinCallTimeout{500};

core::Status notBelowTheFloor(const std::string& flag, std::chrono::milliseconds value,
                              const std::string& text) {
  if (value < kMinCallTimeout) {
    return core::fail(core::Error::invalid(
        flag +
        ": must be at least 500ms (a request needs 250ms and a token may come first), got \"" +
        text + "\""));
  }
  return core::ok();
}

core::Status notAbove(const std::string& flag, std::chrono::milliseconds value,
                      const std::string& otherFlag, std::chrono::milliseconds other) {
  if (value > other) {
    return core::fail(core::Error::invalid(flag + ": must not exceed " + otherFlag));
  }
  return core::ok();
}

}  // namespace

void addLroFlags(CLI::App& sub, LroFlags& flags) {
  sub.add_option("--azure-call-timeout", flags.callTimeout,
                 "How long an Azure operation is polled before it is parked as a future in the "
                 "object's status (the starting value when adaptive timeouts are on)")
      ->capture_default_str();
  sub.add_option("--azure-service-timeout", flags.serviceTimeout,
                 "The time one Azure service (all its resources) may take in a reconcile")
      ->capture_default_str();
  sub.add_option("--azure-reconcile-timeout", flags.reconcileTimeout,
                 "The time one reconcile of an Azure object may take")
      ->capture_default_str();
  sub.add_option("--azure-requeue-after", flags.requeueAfter,
                 "When to look again at an operation in flight if Azure sent no Retry-After")
      ->capture_default_str();
  sub.add_flag("--azure-adaptive-timeouts,!--no-azure-adaptive-timeouts", flags.adaptive,
               "Set each service's call timeout to the observed p99 of its quick operations")
      ->capture_default_str();
  sub.add_option("--azure-adaptive-timeout-min", flags.adaptiveMin,
                 "The lowest call timeout adaptive timeouts may choose")
      ->capture_default_str();
  sub.add_option("--azure-adaptive-timeout-max", flags.adaptiveMax,
                 "The highest call timeout adaptive timeouts may choose; longer operations are "
                 "always parked")
      ->capture_default_str();
}

core::Result<lro::EngineOptions> lroOptions(const LroFlags& flags) {
  lro::EngineOptions options;
  const std::pair<const char*, const std::string*> durations[] = {
      {"--azure-call-timeout", &flags.callTimeout},
      {"--azure-service-timeout", &flags.serviceTimeout},
      {"--azure-reconcile-timeout", &flags.reconcileTimeout},
      {"--azure-requeue-after", &flags.requeueAfter},
      {"--azure-adaptive-timeout-min", &flags.adaptiveMin},
      {"--azure-adaptive-timeout-max", &flags.adaptiveMax},
  };
  std::chrono::milliseconds* targets[] = {
      &options.timeouts.call,    &options.timeouts.service, &options.timeouts.reconcile,
      &options.timeouts.requeue, &options.adaptive.min,     &options.adaptive.max,
  };
  for (size_t i = 0; i < std::size(durations); ++i) {
    auto value = positive(durations[i].first, *durations[i].second);
    if (!value) {
      return core::fail(value.error());
    }
    *targets[i] = *value;
  }
  options.adaptive.enabled = flags.adaptive;
  const auto& t = options.timeouts;
  if (auto s = notBelowTheFloor("--azure-call-timeout", t.call, flags.callTimeout); !s) {
    return core::fail(s.error());
  }
  if (auto s =
          notBelowTheFloor("--azure-adaptive-timeout-min", options.adaptive.min, flags.adaptiveMin);
      !s) {
    return core::fail(s.error());
  }
  if (auto s = notAbove("--azure-call-timeout", t.call, "--azure-service-timeout", t.service); !s) {
    return core::fail(s.error());
  }
  if (auto s =
          notAbove("--azure-service-timeout", t.service, "--azure-reconcile-timeout", t.reconcile);
      !s) {
    return core::fail(s.error());
  }
  const auto& a = options.adaptive;
  if (auto s =
          notAbove("--azure-adaptive-timeout-min", a.min, "--azure-adaptive-timeout-max", a.max);
      !s) {
    return core::fail(s.error());
  }
  if (auto s =
          notAbove("--azure-adaptive-timeout-max", a.max, "--azure-service-timeout", t.service);
      !s) {
    return core::fail(s.error());
  }
  // The call timeout is where adaptation starts: outside the bounds it could never be chosen.
  if (a.enabled && (t.call < a.min || t.call > a.max)) {
    return core::fail(core::Error::invalid(
        "--azure-call-timeout: must lie between --azure-adaptive-timeout-min and "
        "--azure-adaptive-timeout-max while adaptive timeouts are on"));
  }
  return options;
}

}  // namespace nodewright::cmd
