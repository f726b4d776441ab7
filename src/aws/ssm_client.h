#pragma once

#include <string>

#include "aws/error.h"
#include "aws/json_client.h"

// SSM Parameter Store reads, for AMI aliases (/aws/service/eks/optimized-ami/...).
namespace nodewright::aws {

// Thread-safe when the JsonClient is. The client must target "AmazonSSM" (service "ssm").
class SsmClient {
 public:
  explicit SsmClient(JsonClient& client) : client_(client) {}

  // GetParameter's Parameter.Value. ParameterNotFound (HTTP 400, as SSM sends it: a NotFound
  // class error) when there is none by that name.
  ApiResult<std::string> getParameter(const std::string& name);

 private:
  JsonClient& client_;
};

}  // namespace nodewright::aws
