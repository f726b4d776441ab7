#pragma once

#include "api/karpenter/ec2nodeclass.h"

// Cross-field rules of EC2NodeClass, after the karpenter.k8s.aws/v1 CEL validations plus the
// network-interface rules of seed 001. Internal to src/api/karpenter.
namespace nodewright::api::karpenter::rules {

// Each term selects by at least one field; an id stands alone; tags are non-empty.
void validateSubnetTerm(const SubnetSelectorTerm& term, const FieldPath& path, FieldErrors& errs);
void validateSecurityGroupTerm(const SecurityGroupSelectorTerm& term, const FieldPath& path,
                               FieldErrors& errs);
// Also the alias format family@version with a supported family.
void validateAmiTerm(const AMISelectorTerm& term, const FieldPath& path, FieldErrors& errs);
void validateCapacityReservationTerm(const CapacityReservationSelectorTerm& term,
                                     const FieldPath& path, FieldErrors& errs);
// An EBS volume needs a size or a snapshot.
void validateBlockDevice(const BlockDevice& device, const FieldPath& path, FieldErrors& errs);
// amiFamily against the alias, role vs instanceProfile, restricted tags, one root volume, and
// the primary-interface rules of networkInterfaces.
void validateEc2NodeClassSpec(const EC2NodeClassSpec& spec, const FieldPath& path,
                              FieldErrors& errs);

}  // namespace nodewright::api::karpenter::rules
