#include "api/registry.h"
#include "api/seedera/awsnodetemplate.h"
#include "api/seedera/machine.h"
#include "api/seedera/provisioner.h"

// The seed-era kinds are still accepted (validate, convert) but never stored: each names the
// v1 kind it converts to, and src/api/conversion/ does the conversion.
namespace nodewright::api {

void registerSeedEraKinds(Registry& registry) {
  KindInfo provisioner =
      kindFor<seedera::Provisioner>("karpenter.sh", "v1alpha5", "Provisioner", "provisioners");
  provisioner.categories = {"karpenter"};
  provisioner.convertsTo = "karpenter.sh/v1 NodePool";
  provisioner.printerColumns = {
      {"Template", "string", ".spec.providerRef.name", "The AWSNodeTemplate it launches with."},
      {"Weight", "string", ".spec.weight", "Priority among provisioners.", 1},
  };
  registry.add(std::move(provisioner));

  KindInfo machine = kindFor<seedera::Machine>("karpenter.sh", "v1alpha5", "Machine", "machines");
  machine.categories = {"karpenter"};
  machine.convertsTo = "karpenter.sh/v1 NodeClaim";
  machine.printerColumns = {
      {"Ready", "string", ".status.conditions[?(@.type==\"Ready\")].status",
       "Whether it is ready."},
      {"Age", "date", ".metadata.creationTimestamp", "Time since creation."},
  };
  registry.add(std::move(machine));

  KindInfo nodeTemplate = kindFor<seedera::AWSNodeTemplate>("karpenter.k8s.aws", "v1alpha1",
                                                            "AWSNodeTemplate", "awsnodetemplates");
  nodeTemplate.categories = {"karpenter"};
  nodeTemplate.convertsTo = "karpenter.k8s.aws/v1 EC2NodeClass";
  registry.add(std::move(nodeTemplate));
}

}  // namespace nodewright::api
