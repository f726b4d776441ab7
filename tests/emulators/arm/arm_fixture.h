#pragma once

// The ARM emulator's tests speak to it as clients do: real HTTPS (libcurl) against the
// emulator's generated CA, with tokens from its own Entra endpoint, on a FakeClock the test
// advances. Header-only: the tests of this directory share it.
#include <curl/curl.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "api/reflect/json.h"
#include "core/clock.h"
#include "core/text.h"
#include "emulators/arm/server.h"
#include "http/curl_pool.h"

namespace nodewright::emulators::arm::testing {

struct HttpsReply {
  long status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;

  api::Json json() const { return api::Json::parse(body, nullptr, false); }
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
  bool has(const std::string& name) const { return headers.contains(name); }
  // The ARM error code of an error body, or "".
  std::string code() const {
    api::Json j = json();
    if (j.is_object() && j.contains("error") && j["error"].is_object() &&
        j["error"].contains("code") && j["error"]["code"].is_string()) {
      return j["error"]["code"].get<std::string>();
    }
    return {};
  }
};

// One keep-alive libcurl handle trusting `caPem` only. Not thread-safe: one per thread.
class HttpsClient {
 public:
  explicit HttpsClient(std::string caPem) : caPem_(std::move(caPem)) {
    http::curlGlobalInit();
    curl_ = curl_easy_init();
  }
  ~HttpsClient() { curl_easy_cleanup(curl_); }
  HttpsClient(const HttpsClient&) = delete;
  HttpsClient& operator=(const HttpsClient&) = delete;

  HttpsReply send(std::string_view method, const std::string& url, const std::string& body = {},
                  const std::vector<std::string>& headers = {}) {
    HttpsReply reply;
    curl_easy_reset(curl_);
    curl_blob ca{const_cast<char*>(caPem_.data()), caPem_.size(), CURL_BLOB_COPY};
    curl_easy_setopt(curl_, CURLOPT_CAINFO_BLOB, &ca);
    curl_easy_setopt(curl_, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl_, CURLOPT_CUSTOMREQUEST, std::string(method).c_str());
    if (method == "HEAD") {
      curl_easy_setopt(curl_, CURLOPT_NOBODY, 1L);
    }
    if (!body.empty() || method == "PUT" || method == "PATCH" || method == "POST") {
      curl_easy_setopt(curl_, CURLOPT_POSTFIELDS, body.c_str());
      curl_easy_setopt(curl_, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
    }
    http::CurlHeaders list;
    for (const std::string& h : headers) {
      list.add(h);
    }
    curl_easy_setopt(curl_, CURLOPT_HTTPHEADER, list.list);
    curl_easy_setopt(curl_, CURLOPT_WRITEFUNCTION, &HttpsClient::onBody);
    curl_easy_setopt(curl_, CURLOPT_WRITEDATA, &reply.body);
    curl_easy_setopt(curl_, CURLOPT_HEADERFUNCTION, &HttpsClient::onHeader);
    curl_easy_setopt(curl_, CURLOPT_HEADERDATA, &reply.headers);
    curl_easy_setopt(curl_, CURLOPT_TIMEOUT, 30L);
    const CURLcode rc = curl_easy_perform(curl_);
    EXPECT_EQ(rc, CURLE_OK) << method << " " << url << ": " << curl_easy_strerror(rc);
    curl_easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &reply.status);
    return reply;
  }

 private:
  static size_t onBody(char* data, size_t size, size_t n, void* out) {
    static_cast<std::string*>(out)->append(data, size * n);
    return size * n;
  }
  static size_t onHeader(char* data, size_t size, size_t n, void* out) {
    std::string line(data, size * n);
    const size_t colon = line.find(':');
    if (colon != std::string::npos) {
      std::string name = core::lowerAscii(line.substr(0, colon));
      std::string value = line.substr(colon + 1);
      while (!value.empty() && (value.front() == ' ')) {
        value.erase(value.begin());
      }
      while (!value.empty() && (value.back() == '\r' || value.back() == '\n')) {
        value.pop_back();
      }
      (*static_cast<std::map<std::string, std::string>*>(out))[name] = value;
    }
    return size * n;
  }

  std::string caPem_;
  CURL* curl_ = nullptr;
};

constexpr std::string_view kSub = "11111111-2222-3333-4444-555555555555";
constexpr std::string_view kApi = "api-version=2023-09-01";

// Every long-running operation takes exactly its default median, so tests can step through it:
// a VM 45 s, a NIC 2 s, a vnet 4 s, a subnet 3 s, a group's delete 15 s.
inline std::map<std::string, Latency, std::less<>> fixedLatencies() {
  std::map<std::string, Latency, std::less<>> out;
  for (const auto& [op, latency] : defaultLatencies()) {
    out.emplace(op,
                latency.kind == Latency::Kind::LogNormal ? Latency::fixed(latency.p50) : latency);
  }
  return out;
}

class ArmFixture : public ::testing::Test {
 protected:
  void SetUp() override { start(options()); }

  virtual ArmEmulatorOptions options() {
    ArmEmulatorOptions o;
    o.latencies = fixedLatencies();
    return o;
  }

  void start(ArmEmulatorOptions o) {
    auto started = ArmServer::start(clock_, std::move(o));
    ASSERT_TRUE(started) << started.error().message();
    server_ = std::move(*started);
    client_ = std::make_unique<HttpsClient>(server_->caPem());
    token_ = server_->emulator().identity().issue("test-client", "https://management.azure.com/",
                                                  std::chrono::seconds(3599));
  }

  std::string url(std::string_view path, bool withApiVersion = true) const {
    std::string u = server_->url() + std::string(path);
    if (withApiVersion) {
      u += (path.find('?') == std::string_view::npos ? "?" : "&") + std::string(kApi);
    }
    return u;
  }
  static std::string group(std::string_view rg = "rg") {
    return "/subscriptions/" + std::string(kSub) + "/resourceGroups/" + std::string(rg);
  }
  static std::string network(std::string_view typeAndName, std::string_view rg = "rg") {
    return group(rg) + "/providers/Microsoft.Network/" + std::string(typeAndName);
  }
  static std::string compute(std::string_view typeAndName, std::string_view rg = "rg") {
    return group(rg) + "/providers/Microsoft.Compute/" + std::string(typeAndName);
  }

  HttpsReply call(std::string_view method, std::string_view path, const api::Json& body = {}) {
    return client_->send(method, url(path), body.is_null() ? std::string() : api::dumpJson(body),
                         {"Authorization: Bearer " + token_, "Content-Type: application/json"});
  }
  // GET of an absolute URL from a header (Azure-AsyncOperation, Location).
  HttpsReply follow(const std::string& absolute) {
    return client_->send("GET", absolute, {}, {"Authorization: Bearer " + token_});
  }
  std::string state(std::string_view path) {
    HttpsReply r = call("GET", path);
    api::Json j = r.json();
    if (r.status != 200 || !j.contains("properties")) {
      return "status " + std::to_string(r.status);
    }
    return j["properties"].value("provisioningState", "");
  }
  void advance(std::chrono::microseconds d) { clock_.advance(d); }

  // A group, a vnet with a subnet, and a NIC in it, all Succeeded.
  void createNetwork() {
    ASSERT_EQ(call("PUT", group(), {{"location", "eastus"}}).status, 201);
    ASSERT_EQ(call("PUT", network("virtualNetworks/vnet"),
                   {{"location", "eastus"},
                    {"properties", {{"addressSpace", {{"addressPrefixes", {"10.0.0.0/16"}}}}}}})
                  .status,
              201);
    advance(std::chrono::seconds(4));
    ASSERT_EQ(call("PUT", network("virtualNetworks/vnet/subnets/default"),
                   {{"properties", {{"addressPrefix", "10.0.1.0/24"}}}})
                  .status,
              201);
    advance(std::chrono::seconds(3));
    ASSERT_EQ(call("PUT", network("networkInterfaces/nic"), nicBody()).status, 201);
    advance(std::chrono::seconds(2));
    ASSERT_EQ(state(network("networkInterfaces/nic")), "Succeeded");
  }
  static api::Json nicBody(std::string_view subnet = "default") {
    return {
        {"location", "eastus"},
        {"properties",
         {{"ipConfigurations",
           {{{"name", "ipconfig1"},
             {"properties",
              {{"subnet",
                {{"id", network("virtualNetworks/vnet/subnets/" + std::string(subnet))}}}}}}}}}}};
  }
  static api::Json vmBody(std::string_view nic = "nic", std::string_view size = "Standard_D2s_v3") {
    return {{"location", "eastus"},
            {"properties",
             {{"hardwareProfile", {{"vmSize", std::string(size)}}},
              {"osProfile",
               {{"computerName", "vm"}, {"adminUsername", "capi"}, {"adminPassword", "hunter2!"}}},
              {"networkProfile",
               {{"networkInterfaces",
                 {{{"id", network("networkInterfaces/" + std::string(nic))}}}}}}}}};
  }

  // A scale set of `capacity` instances in the subnet createNetwork() makes.
  static api::Json vmssBody(int capacity) {
    return {{"location", "eastus"},
            {"sku", {{"name", "Standard_D2s_v3"}, {"tier", "Standard"}, {"capacity", capacity}}},
            {"properties",
             {{"virtualMachineProfile",
               {{"osProfile", {{"computerNamePrefix", "pool"}, {"adminUsername", "capi"}}},
                {"networkProfile",
                 {{"networkInterfaceConfigurations",
                   {{{"name", "nic"},
                     {"properties",
                      {{"ipConfigurations",
                        {{{"name", "ip"},
                          {"properties",
                           {{"subnet",
                             {{"id",
                               network("virtualNetworks/vnet/subnets/default")}}}}}}}}}}}}}}}}}}}};
  }
  // The status of the operation an Azure-AsyncOperation URL names.
  std::string operationStatus(const HttpsReply& reply) {
    return follow(reply.header("azure-asyncoperation")).json().value("status", "");
  }

  core::FakeClock clock_;
  std::unique_ptr<ArmServer> server_;
  std::unique_ptr<HttpsClient> client_;
  std::string token_;
};

}  // namespace nodewright::emulators::arm::testing
