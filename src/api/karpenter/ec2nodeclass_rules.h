#pragma once

#include "api/karpenter/ec2nodeclass.h"

// Cross-field rules of EC2NodeClass, after the karpenter.k8s.aws/v1 CRD (aws/karpenter-provider-
// aws v1.14 pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml) plus the network-interface
// extensions of seed 001. A rule the CRD states on a list or an object reports at that list or
// object, as kube-apiserver names a failed x-kubernetes-validations rule, and has the CRD's
// quantifier: "!self.all(...)" rules only fail when every term breaks them.
// Internal to src/api/karpenter.
namespace nodewright::api::karpenter::rules {

// The CRD's volumeSize pattern: 1-59000Gi, 1-64000G, 1-58Ti or 1-64T.
inline constexpr const char* kVolumeSizePattern =
    "^((?:[1-9][0-9]{0,3}|[1-4][0-9]{4}|[5][0-8][0-9]{3}|59000)Gi|(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|"
    "[6][0-3][0-9]{3}|64000)G|([1-9]||[1-5][0-7]|58)Ti|([1-9]||[1-5][0-9]|6[0-3]|64)T)$";

// Per term: the id pattern and non-empty tag keys and values.
void validateSubnetTerm(const SubnetSelectorTerm& term, const FieldPath& path, FieldErrors& errs);
void validateSecurityGroupTerm(const SecurityGroupSelectorTerm& term, const FieldPath& path,
                               FieldErrors& errs);
// Also the alias format family@version with a supported family.
void validateAmiTerm(const AMISelectorTerm& term, const FieldPath& path, FieldErrors& errs);
void validateCapacityReservationTerm(const CapacityReservationSelectorTerm& term,
                                     const FieldPath& path, FieldErrors& errs);
// Per list: every term selects by something; an id stands alone.
void validateSubnetTerms(const std::vector<SubnetSelectorTerm>& terms, const FieldPath& path,
                         FieldErrors& errs);
void validateSecurityGroupTerms(const std::vector<SecurityGroupSelectorTerm>& terms,
                                const FieldPath& path, FieldErrors& errs);
void validatePlacementGroupSelector(const PlacementGroupSelector& selector, const FieldPath& path,
                                    FieldErrors& errs);
void validateConnectionTracking(const ConnectionTracking& tracking, const FieldPath& path,
                                FieldErrors& errs);
// An EBS volume needs a size or a snapshot; the size matches kVolumeSizePattern.
void validateBlockDevice(const BlockDevice& device, const FieldPath& path, FieldErrors& errs);
// amiFamily against the alias, role vs instanceProfile, restricted tags, one root volume, and
// the primary-interface rules of networkInterfaces.
void validateEc2NodeClassSpec(const EC2NodeClassSpec& spec, const FieldPath& path,
                              FieldErrors& errs);

}  // namespace nodewright::api::karpenter::rules
