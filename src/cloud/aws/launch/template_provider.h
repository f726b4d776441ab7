#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "api/karpenter/ec2nodeclass.h"
#include "aws/ec2_client.h"
#include "cloud/aws/amifamily/bootstrap.h"
#include "cloud/aws/launch/template_data.h"
#include "cloud/aws/nodeclass/resolved.h"
#include "cloud/aws/sdk.h"
#include "core/clock.h"
#include "core/error.h"

// Launch templates, one per distinct launch configuration, named after a hash of their content
// (data.h), so the same configuration always finds the same template and a changed one gets a
// new template instead of a new version: instances launched before keep theirs. Templates are
// tagged with the cluster and node class that own them, which is how cleanup finds them.
namespace nodewright::cloud::aws {

struct LaunchTemplateProviderOptions {
  ClusterInfo cluster;
  // How long a template known to exist is trusted without asking EC2 again. A template deleted
  // behind our back shows as a fleet error meanwhile; the instance provider then invalidates.
  std::chrono::seconds cacheTtl{300};
};

// Thread-safe; `ec2` and `clock` must outlive it.
class LaunchTemplateProvider {
 public:
  LaunchTemplateProvider(sdk::Ec2Client& ec2, const core::Clock& clock,
                         LaunchTemplateProviderOptions options);

  // The name of the template `settings` launch with under `nodeClass`, created when missing.
  // Invalid for a node class that cannot be written as a template (see buildTemplate).
  core::Result<std::string> ensure(const api::karpenter::EC2NodeClass& nodeClass,
                                   const ResolvedNodeClass& resolved,
                                   const LaunchSettings& settings);
  // The same for a template already built: DescribeLaunchTemplates by name, and
  // CreateLaunchTemplate when it is missing. A create that loses a race to another (or to its
  // own retried attempt) finds the name taken, which counts as found.
  core::Result<std::string> ensure(const TemplateSpec& spec);

  // Deletes this cluster's templates of `nodeClassName` whose names are not in `keep` (the
  // node class changed); returns their names, sorted. Templates already gone are skipped.
  core::Result<std::vector<std::string>> cleanup(const std::string& nodeClassName,
                                                 const std::set<std::string>& keep);
  // Every template of `nodeClassName` (the node class is gone).
  core::Result<std::vector<std::string>> deleteAll(const std::string& nodeClassName);

  // Forgets that `name` exists, so the next ensure() asks EC2.
  void invalidate(const std::string& name);

  const ClusterInfo& cluster() const { return options_.cluster; }

 private:
  bool cached(const std::string& name) const;
  void remember(const std::string& name);

  sdk::Ec2Client& ec2_;
  const core::Clock& clock_;
  const LaunchTemplateProviderOptions options_;

  mutable std::mutex mu_;
  std::map<std::string, std::chrono::steady_clock::time_point> known_;  // GUARDED_BY(mu_)
};

}  // namespace nodewright::cloud::aws
