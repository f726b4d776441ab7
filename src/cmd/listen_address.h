#pragma once

#include <cstdint>
#include <string>

#include "core/error.h"

namespace nodewright::cmd {

struct ListenAddress {
  std::string host;
  uint16_t port = 0;
};

// "127.0.0.1:6443", "[::1]:0". Only loopback addresses are accepted: nodewright's embedded
// servers are for this machine.
core::Result<ListenAddress> parseListenAddress(const std::string& text);

}  // namespace nodewright::cmd
