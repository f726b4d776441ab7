#pragma once

#include <cstdint>
#include <string>

#include "core/error.h"

namespace nodewright::cmd {

struct ListenAddress {
  std::string host;
  uint16_t port = 0;
};

enum class ListenScope {
  LoopbackOnly,  // nodewright's embedded servers and emulators are for this machine
  Any,           // a controller's metrics and probes, which a kubelet and Prometheus must reach
};

// "127.0.0.1:6443", "[::1]:0", "0.0.0.0:8080" (ListenScope::Any). Errors name `flag`.
core::Result<ListenAddress> parseListenAddress(const std::string& text,
                                               const std::string& flag = "--listen",
                                               ListenScope scope = ListenScope::LoopbackOnly);

}  // namespace nodewright::cmd
