#include "support/runtime/scrape.h"

#include <cmath>

#include <curl/curl.h>
#include <gtest/gtest.h>

#include "support/apiserver/process.h"

namespace nodewright::runtime::testing {
namespace {

size_t appendBody(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

const char* kParseScript = R"(
import sys, json
from prometheus_client.parser import text_string_to_metric_families
out = []
for f in text_string_to_metric_families(sys.stdin.read()):
    out.append({"name": f.name, "type": f.type, "help": f.documentation,
                "samples": [[s.name, s.labels, repr(s.value)] for s in f.samples]})
print(json.dumps(out))
)";

}  // namespace

Fetched fetch(uint16_t port, const std::string& target, const char* method) {
  Fetched out;
  CURL* curl = curl_easy_init();
  std::string url = "http://127.0.0.1:" + std::to_string(port) + target;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, appendBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &out.body);
  curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 30L);
  CURLcode code = curl_easy_perform(curl);
  if (code != CURLE_OK) {
    out.error = curl_easy_strerror(code);
  } else {
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &out.status);
    char* type = nullptr;
    curl_easy_getinfo(curl, CURLINFO_CONTENT_TYPE, &type);
    if (type) {
      out.contentType = type;
    }
  }
  curl_easy_cleanup(curl);
  return out;
}

nlohmann::json parseWithPrometheus(const std::string& text) {
  // Debian's python3-prometheus-client lives under the system interpreter, not a pyenv one.
  auto ran = apiserver::testing::runProcess({"/usr/bin/python3", "-c", kParseScript}, text);
  EXPECT_EQ(ran.code, 0) << ran.err << "\n--- input:\n" << text;
  if (ran.code != 0) {
    return nlohmann::json::array();
  }
  return nlohmann::json::parse(ran.out);
}

int prometheusParserExitCode(const std::string& text) {
  return apiserver::testing::runProcess({"/usr/bin/python3", "-c", kParseScript}, text).code;
}

const nlohmann::json* findFamily(const nlohmann::json& families, const std::string& name) {
  for (const auto& f : families) {
    if (f["name"] == name) {
      return &f;
    }
  }
  return nullptr;
}

double sampleValue(const nlohmann::json& family, const std::string& name,
                   const nlohmann::json& labels) {
  for (const auto& s : family["samples"]) {
    if (s[0] == name && s[1] == labels) {
      return std::stod(s[2].get<std::string>());
    }
  }
  ADD_FAILURE() << "no sample " << name << labels.dump() << " in " << family.dump();
  return std::nan("");
}

}  // namespace nodewright::runtime::testing
