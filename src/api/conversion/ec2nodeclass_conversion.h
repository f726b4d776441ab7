#pragma once

#include "api/conversion/common.h"
#include "api/karpenter/ec2nodeclass.h"
#include "api/seedera/awsnodetemplate.h"

// karpenter.k8s.aws/v1alpha1 AWSNodeTemplate <-> karpenter.k8s.aws/v1 EC2NodeClass, after
// Karpenter's own migration:
//   subnetSelector, securityGroupSelector -> subnetSelectorTerms, securityGroupSelectorTerms
//   amiSelector                           -> amiSelectorTerms (aws::owners -> owner); without
//                                            one, an alias derived from amiFamily (AL2 or unset
//                                            -> al2@latest, AL2023 -> al2023@latest,
//                                            Bottlerocket -> bottlerocket@latest,
//                                            Windows2019/2022 -> windows2019/2022@latest)
//   associatePublicIpAddress              -> associatePublicIPAddress
//   networkInterfaces (seed 001)          -> networkInterfaces, per-interface selectors to
//                                            per-interface selector terms
//   launchTemplate (launchTemplateName)   -> error: v1 has no unmanaged launch templates
//   everything else                       -> the field of the same name
// See selectors.h for the selector rules and annotations.h for what is kept in annotations.
// role has no v1alpha1 source; instanceProfile carries over.
namespace nodewright::api::conversion {

// Fails with every field that has no v1 home, or that would not survive the way back.
Converted<karpenter::EC2NodeClass> toEC2NodeClass(const seedera::AWSNodeTemplate& nodeTemplate);

// Restores a converted AWSNodeTemplate exactly; for other EC2NodeClasses, fails with every
// v1-only setting (role, alias or SSM AMI terms, kubelet, capacity reservations, ...). Status
// fields v1 added (zoneID, deprecated, instanceProfile, conditions) are not kept.
Converted<seedera::AWSNodeTemplate> toAWSNodeTemplate(const karpenter::EC2NodeClass& nodeClass);

}  // namespace nodewright::api::conversion
