#pragma once

#include "cloud/aws/drift/node_class_drift.h"

// Live interface drift (seeds 001 and 002): the interfaces an instance runs with now, as
// DescribeInstances reports them, against its node class's spec.networkInterfaces. An interface
// detached out of band, or one of another type, drifts the node; the hash cannot see either,
// since the spec did not change.
namespace nodewright::cloud::aws::drift {

// The check "NetworkInterfaces". The spec's interfaces, sorted by deviceIndex then
// networkCardIndex (seed 001: "the comparison will happen after sorting the networkInterfaces
// with deviceIndex"), each need an interface of the instance on the same (networkCardIndex,
// deviceIndex) with the same interfaceType (unset: "interface"). The instance must contain the
// listed interfaces, not equal them (seed 001: drift when the node "does not contain the
// specified NetworkInterfaces"): interfaces a CNI attaches later (VPC CNI's secondary and trunk
// ENIs) are not drift. deleteOnTermination is behavioral (seed 001's table) and never compared,
// nor are the fields the hash covers. Drifted with reason NetworkInterfaceDrifted and one change
// per missing or changed interface, under
// spec.networkInterfaces[networkCardIndex=C,deviceIndex=D] (from: what the instance has, null
// when absent; to: what the spec lists). Not compared (passes, saying so) when EC2 reported no
// interfaces for the instance.
DriftCheck interfaceLayoutDrift(const NodeClassDriftContext& context,
                                const InstanceFacts& instance);

}  // namespace nodewright::cloud::aws::drift
