#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "aws/credentials.h"
#include "aws/error.h"
#include "aws/shared_config.h"

// Which region and which endpoint URL a client talks to, with the standard overrides.
// https://docs.aws.amazon.com/sdkref/latest/guide/feature-region.html
// https://docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html
namespace nodewright::aws {

// Asks IMDS for the region; may be empty (no lookup).
using RegionLookup = std::function<ApiResult<std::string>()>;

// flag > AWS_REGION > AWS_DEFAULT_REGION > the profile's `region` > IMDS. "NoRegion" naming
// every source when none has one. `profile` may be null (not loaded).
ApiResult<std::string> resolveRegion(const std::optional<std::string>& flag, const EnvLookup& env,
                                     const Profile* profile, const RegionLookup& imds = {});

// "ec2" -> "AWS_ENDPOINT_URL_EC2": upper-case, spaces and dashes to underscores.
std::string endpointEnvName(std::string_view service);

// The service's default endpoint: https://SERVICE.REGION.amazonaws.com (".amazonaws.com.cn" in
// China regions); the Pricing API is https://api.pricing.us-east-1.amazonaws.com whatever the
// region.
std::string defaultEndpoint(std::string_view service, std::string_view region);

// flag > AWS_ENDPOINT_URL_<SERVICE> > AWS_ENDPOINT_URL > the profile's `endpoint_url` >
// defaultEndpoint(). AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true skips the environment and the
// profile (not the flag). Every override is validated; the error names where it came from.
ApiResult<std::string> resolveEndpoint(std::string_view service, std::string_view region,
                                       const std::optional<std::string>& flag, const EnvLookup& env,
                                       const Profile* profile);

// An absolute http(s) URL with a host and nothing after the path: "InvalidEndpoint" otherwise,
// naming `source` ("AWS_ENDPOINT_URL_EC2"). Returns the URL without a trailing '/'.
ApiResult<std::string> validateEndpointUrl(std::string_view url, std::string_view source);

}  // namespace nodewright::aws
