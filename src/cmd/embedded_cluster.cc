#include "cmd/embedded_cluster.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "apiserver/pki/credentials.h"

namespace nodewright::cmd {

namespace fs = std::filesystem;

core::Status writeEmbeddedCluster(const std::string& dataDir, const EmbeddedCluster& cluster) {
  const nlohmann::ordered_json json = {
      {"clusterName", cluster.clusterName},
      {"region", cluster.region},
      {"ec2Endpoint", cluster.ec2Endpoint},
      {"ssmEndpoint", cluster.ssmEndpoint},
      {"pricingEndpoint", cluster.pricingEndpoint},
      {"awsConfigFile", cluster.awsConfigFile},
      {"awsCredentialsFile", cluster.awsCredentialsFile},
  };
  return apiserver::pki::writePrivateFile((fs::path(dataDir) / kEmbeddedClusterFile).string(),
                                          json.dump(2) + "\n");
}

core::Result<std::optional<EmbeddedCluster>> readEmbeddedClusterBeside(
    const std::string& kubeconfigPath) {
  const fs::path path = fs::path(kubeconfigPath).parent_path() / kEmbeddedClusterFile;
  std::ifstream in(path);
  if (!in) {
    return std::optional<EmbeddedCluster>();
  }
  std::stringstream text;
  text << in.rdbuf();
  const auto json = nlohmann::json::parse(text.str(), nullptr, false);
  if (!json.is_object()) {
    return core::fail(core::Error::invalid(path.string() + ": not a JSON object"));
  }
  auto field = [&json](const char* name) {
    auto it = json.find(name);
    return it != json.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  EmbeddedCluster cluster;
  cluster.clusterName = field("clusterName");
  cluster.region = field("region");
  cluster.ec2Endpoint = field("ec2Endpoint");
  cluster.ssmEndpoint = field("ssmEndpoint");
  cluster.pricingEndpoint = field("pricingEndpoint");
  cluster.awsConfigFile = field("awsConfigFile");
  cluster.awsCredentialsFile = field("awsCredentialsFile");
  return std::optional<EmbeddedCluster>(std::move(cluster));
}

}  // namespace nodewright::cmd
