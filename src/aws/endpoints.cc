#include "aws/endpoints.h"

#include <algorithm>
#include <cctype>

namespace nodewright::aws {
namespace {

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// Regions go into host names, so only the characters AWS region names use are accepted.
ApiResult<std::string> checkRegion(std::string region, std::string_view source) {
  const bool ok = !region.empty() && std::all_of(region.begin(), region.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
  if (!ok) {
    return apiFail("InvalidRegion",
                   "region from " + std::string(source) +
                       " must be lower-case letters, digits and dashes, as in "
                       "\"us-east-1\"",
                   0);
  }
  return region;
}

}  // namespace

ApiResult<std::string> resolveRegion(const std::optional<std::string>& flag, const EnvLookup& env,
                                     const Profile* profile, const RegionLookup& imds) {
  if (flag && !flag->empty()) {
    return checkRegion(*flag, "the --region flag");
  }
  for (const char* name : {"AWS_REGION", "AWS_DEFAULT_REGION"}) {
    if (auto value = env(name)) {
      return checkRegion(*value, name);
    }
  }
  std::string profileName = profile ? profile->name : "default";
  if (profile) {
    if (auto value = profile->get("region")) {
      return checkRegion(*value, "region in profile \"" + profileName + "\"");
    }
  }
  std::string tried = "the --region flag, AWS_REGION, AWS_DEFAULT_REGION, region in profile \"" +
                      profileName + "\"";
  if (imds) {
    auto region = imds();
    if (region) {
      return checkRegion(*region, "instance metadata");
    }
    tried += ", instance metadata (" + region.error().message + ")";
  }
  return apiFail("NoRegion", "no AWS region set; looked at " + tried, 0);
}

std::string endpointEnvName(std::string_view service) {
  std::string name = "AWS_ENDPOINT_URL_";
  for (char c : service) {
    name += (c == ' ' || c == '-') ? '_'
                                   : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return name;
}

std::string defaultEndpoint(std::string_view service, std::string_view region) {
  if (service == "pricing") {
    // The Pricing API answers in a few regions only; us-east-1 has every price list.
    return "https://api.pricing.us-east-1.amazonaws.com";
  }
  const std::string suffix = region.rfind("cn-", 0) == 0 ? ".amazonaws.com.cn" : ".amazonaws.com";
  return "https://" + std::string(service) + "." + std::string(region) + suffix;
}

ApiResult<std::string> resolveEndpoint(std::string_view service, std::string_view region,
                                       const std::optional<std::string>& flag, const EnvLookup& env,
                                       const Profile* profile) {
  if (flag && !flag->empty()) {
    return validateEndpointUrl(*flag, "the endpoint flag");
  }
  const auto ignore = env("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS");
  if (!ignore || !equalsIgnoreCase(*ignore, "true")) {
    for (const std::string& name : {endpointEnvName(service), std::string("AWS_ENDPOINT_URL")}) {
      if (auto value = env(name)) {
        return validateEndpointUrl(*value, name);
      }
    }
    if (profile) {
      if (auto value = profile->get("endpoint_url")) {
        return validateEndpointUrl(*value, "endpoint_url in profile \"" + profile->name + "\"");
      }
    }
  }
  if (service != "pricing") {
    auto checked = checkRegion(std::string(region), "the resolved region");
    if (!checked) {
      return tl::unexpected(checked.error());
    }
  }
  return defaultEndpoint(service, region);
}

ApiResult<std::string> validateEndpointUrl(std::string_view url, std::string_view source) {
  auto invalid = [&](std::string_view why, bool echo = true) {
    std::string message = "endpoint from " + std::string(source);
    if (echo) {
      message += " (\"" + std::string(url) + "\")";
    }
    return apiFail("InvalidEndpoint", message + " " + std::string(why), 0);
  };
  size_t schemeEnd = url.find("://");
  if (schemeEnd == std::string_view::npos) {
    return invalid("is not an absolute URL: it needs http:// or https://");
  }
  std::string_view scheme = url.substr(0, schemeEnd);
  if (!equalsIgnoreCase(scheme, "http") && !equalsIgnoreCase(scheme, "https")) {
    return invalid("has a scheme other than http or https");
  }
  if (std::any_of(url.begin(), url.end(),
                  [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; })) {
    return invalid("contains whitespace");
  }
  std::string_view rest = url.substr(schemeEnd + 3);
  size_t authorityEnd = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, authorityEnd);
  if (authority.find('@') != std::string_view::npos) {
    // User info may be a password: not echoed.
    return invalid("must not carry user information", false);
  }
  std::string_view host = authority;
  std::string_view port;
  bool hasPort = false;
  if (!host.empty() && host.front() == '[') {
    size_t close = host.find(']');
    if (close == std::string_view::npos) {
      return invalid("has an unterminated IPv6 address");
    }
    port = host.substr(close + 1);
    host = host.substr(0, close + 1);
    if (!port.empty() && port.front() != ':') {
      return invalid("has text after its IPv6 address");
    }
    hasPort = !port.empty();
    port = hasPort ? port.substr(1) : port;
  } else if (size_t colon = host.rfind(':'); colon != std::string_view::npos) {
    hasPort = true;
    port = host.substr(colon + 1);
    host = host.substr(0, colon);
  }
  if (host.empty() || host == "[]") {
    return invalid("has no host");
  }
  if (hasPort) {
    const bool digits =
        !port.empty() && port.size() <= 5 &&
        std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits || std::stoi(std::string(port)) == 0 || std::stoi(std::string(port)) > 65535) {
      return invalid("has an invalid port");
    }
  }
  if (authorityEnd != std::string_view::npos) {
    std::string_view tail = rest.substr(authorityEnd);
    if (tail.find_first_of("?#") != std::string_view::npos) {
      return invalid("must not have a query or fragment");
    }
  }
  std::string result(url);
  while (result.size() > schemeEnd + 3 + authority.size() && result.back() == '/') {
    result.pop_back();
  }
  return result;
}

}  // namespace nodewright::aws
