#include "cmd/build_info.h"

#include <string>

namespace nodewright::cmd {
namespace {

std::string compiler() {
#if defined(__clang__)
  return std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("gcc ") + __VERSION__;
#else
  return "unknown";
#endif
}

const char* architecture() {
#if defined(__x86_64__)
  return "amd64";
#elif defined(__aarch64__)
  return "arm64";
#else
  return "unknown";
#endif
}

}  // namespace

void registerBuildInfo(runtime::Registry& registry) {
  registry
      .gauge("karpenter_build_info",
             "A metric with a constant '1' value labeled by version from which karpenter was "
             "built.",
             {"version", "goversion", "goarch", "commit"})
      .with({NW_VERSION, compiler(), architecture(), ""})
      .set(1);
}

}  // namespace nodewright::cmd
