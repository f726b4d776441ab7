#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

// Reading the runtime's HTTP endpoints the way Prometheus and kubelet probes do.
namespace nodewright::runtime::testing {

struct Fetched {
  long status = 0;
  std::string contentType;
  std::string body;
  std::string error;
};

// A plain HTTP request to 127.0.0.1:port (libcurl, no proxy).
Fetched fetch(uint16_t port, const std::string& target, const char* method = "GET");

// Every sample of every family as the real Prometheus Python parser reads the text; values as
// Python's repr ("3.0", "inf", "nan") since JSON has no infinities. A parse failure fails the
// test and returns an empty array.
nlohmann::json parseWithPrometheus(const std::string& text);
// The parser's exit code alone (non-zero for text Prometheus would refuse).
int prometheusParserExitCode(const std::string& text);
const nlohmann::json* findFamily(const nlohmann::json& families, const std::string& name);
// The value of the one sample with this name and these labels; NaN (and a test failure) if absent.
double sampleValue(const nlohmann::json& family, const std::string& name,
                   const nlohmann::json& labels);

}  // namespace nodewright::runtime::testing
