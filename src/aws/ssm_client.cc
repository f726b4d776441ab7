#include "aws/ssm_client.h"

#include <fmt/format.h>

namespace nodewright::aws {

ApiResult<std::string> SsmClient::getParameter(const std::string& name) {
  auto response = client_.call("GetParameter", nlohmann::json{{"Name", name}});
  if (!response) {
    return tl::unexpected(response.error());
  }
  auto parameter = response->find("Parameter");
  if (parameter == response->end() || !parameter->is_object() || !parameter->contains("Value") ||
      !(*parameter)["Value"].is_string()) {
    return apiFail("MalformedResponse",
                   fmt::format("GetParameter {}: the response has no Parameter.Value", name), 200);
  }
  return (*parameter)["Value"].get<std::string>();
}

}  // namespace nodewright::aws
