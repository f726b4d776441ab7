#pragma once

// The AWS client layer (src/aws, namespace nodewright::aws) under a name that does not clash
// with this namespace: inside nodewright::cloud::aws, "aws::" would name this one.
namespace nodewright::aws {}
namespace nodewright::cloud::aws {
namespace sdk = ::nodewright::aws;
}  // namespace nodewright::cloud::aws
