#include "support/emulators/query_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <memory>

#include <pugixml.hpp>

#include "aws/xml.h"

namespace nodewright::emulators::testing {
namespace {

size_t appendBody(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

// Collects "Name: value" header lines under lower-case names; the status line is skipped.
size_t appendHeader(char* data, size_t size, size_t count, void* out) {
  std::string_view line(data, size * count);
  const size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    std::string name(line.substr(0, colon));
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) {
      value.remove_prefix(1);
    }
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n')) {
      value.remove_suffix(1);
    }
    (*static_cast<std::map<std::string, std::string>*>(out))[name] = std::string(value);
  }
  return size * count;
}

struct CurlDeleter {
  void operator()(CURL* curl) const { curl_easy_cleanup(curl); }
};
struct SlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

// Changes the last hex digit of the Authorization header's signature.
void corruptSignature(aws::sigv4::Headers& headers) {
  auto it = headers.find("Authorization");
  if (it == headers.end() || it->second.empty()) {
    return;
  }
  char& last = it->second.back();
  last = last == '0' ? '1' : '0';
}

}  // namespace

std::optional<aws::ApiError> WireResponse::error() const {
  return aws::xml::parseEc2Error(body, status);
}

std::string WireResponse::firstText(std::string_view name) const {
  pugi::xml_document doc;
  if (!doc.load_buffer(body.data(), body.size())) {
    return "";
  }
  const std::string wanted(name);
  pugi::xml_node found = doc.find_node([&](pugi::xml_node node) {
    return node.type() == pugi::node_element && node.name() == wanted;
  });
  return found ? found.child_value() : "";
}

std::vector<std::string> WireResponse::itemTexts(std::string_view name) const {
  std::vector<std::string> out;
  pugi::xml_document doc;
  if (!doc.load_buffer(body.data(), body.size())) {
    return out;
  }
  const std::string wanted(name);
  for (pugi::xpath_node list : doc.select_nodes(("//" + wanted).c_str())) {
    for (pugi::xml_node item : list.node().children("item")) {
      out.emplace_back(item.child_value());
    }
  }
  return out;
}

QueryClient::QueryClient(std::string baseUrl, const core::Clock& clock,
                         aws::sigv4::Credentials credentials, std::string region)
    : baseUrl_(std::move(baseUrl)),
      clock_(clock),
      credentials_(std::move(credentials)),
      region_(std::move(region)) {
  const size_t scheme = baseUrl_.find("://");
  host_ = scheme == std::string::npos ? baseUrl_ : baseUrl_.substr(scheme + 3);
}

core::Result<WireResponse> QueryClient::call(std::string_view action,
                                             const aws::ParamPairs& params) {
  aws::ParamPairs all{{"Action", std::string(action)}, {"Version", std::string(kEc2Version)}};
  all.insert(all.end(), params.begin(), params.end());
  RawRequest request;
  request.body = aws::encodeForm(all);
  return send(request);
}

core::Result<WireResponse> QueryClient::get(std::string_view target) {
  RawRequest request;
  request.method = "GET";
  request.target = std::string(target);
  request.contentType.clear();
  return send(request);
}

core::Result<WireResponse> QueryClient::admin(std::string method, std::string target,
                                              std::string json) {
  RawRequest request;
  request.method = std::move(method);
  request.target = std::move(target);
  request.body = std::move(json);
  request.contentType = "application/json";
  return send(request);
}

core::Result<WireResponse> QueryClient::send(const RawRequest& request) {
  aws::sigv4::Request signable;
  signable.method = request.method;
  const size_t question = request.target.find('?');
  signable.path = request.target.substr(0, question);
  signable.query = question == std::string::npos ? "" : request.target.substr(question + 1);
  signable.headers.emplace("Host", host_);
  if (!request.contentType.empty()) {
    signable.headers.emplace("Content-Type", request.contentType);
  }
  for (const auto& [name, value] : request.headers) {
    signable.headers.emplace(name, value);
  }
  signable.body = request.body;
  if (request.signing != Signing::None) {
    auto signedOk = aws::sigv4::sign(signable, credentials_, region_, "ec2", clock_.now() + skew_);
    if (!signedOk) {
      return core::fail(signedOk.error().wrap("signing"));
    }
    if (request.signing == Signing::WrongSignature) {
      corruptSignature(signable.headers);
    }
  }

  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  if (!curl) {
    return core::fail(core::Error::internal("curl_easy_init failed"));
  }
  curl_slist* raw = nullptr;
  for (const auto& [name, value] : signable.headers) {
    raw = curl_slist_append(raw, (name + ": " + value).c_str());
  }
  // No "Expect: 100-continue" for large bodies, and no headers curl would add unasked.
  raw = curl_slist_append(raw, "Expect:");
  if (request.contentType.empty()) {
    raw = curl_slist_append(raw, "Content-Type:");
  }
  std::unique_ptr<curl_slist, SlistDeleter> headers(raw);

  if (request.bodyAfterSigning) {
    signable.body = *request.bodyAfterSigning;
  }
  WireResponse response;
  const std::string url = baseUrl_ + request.target;
  curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_CUSTOMREQUEST, request.method.c_str());
  if (request.method == "GET") {
    curl_easy_setopt(curl.get(), CURLOPT_HTTPGET, 1L);
  } else {
    curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDS, signable.body.data());
    curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(signable.body.size()));
  }
  curl_easy_setopt(curl.get(), CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, appendBody);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(curl.get(), CURLOPT_HEADERFUNCTION, appendHeader);
  curl_easy_setopt(curl.get(), CURLOPT_HEADERDATA, &response.headers);
  curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT, 60L);
  curl_easy_setopt(curl.get(), CURLOPT_NOPROXY, "*");
  const CURLcode code = curl_easy_perform(curl.get());
  if (code != CURLE_OK) {
    return core::fail(core::Error::internal(std::string("http request to ") + url +
                                            " failed: " + curl_easy_strerror(code)));
  }
  long status = 0;
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &status);
  response.status = static_cast<int>(status);
  return response;
}

}  // namespace nodewright::emulators::testing
