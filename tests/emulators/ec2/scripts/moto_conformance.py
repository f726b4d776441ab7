"""The same boto3 calls against moto and against the emulator, compared by response shape: the
set of key paths (lists collapsed to "[]", values and ResponseMetadata ignored). A path one side
returns and the other does not is a difference, in either direction, unless ALLOWED explains it.
For calls that must fail, the error codes are compared instead.

Usage: moto_conformance.py EMULATOR_ENDPOINT
moto runs in this process (moto.server.ThreadedMotoServer: moto_server's own WSGI app) on a port
the OS picks, so nothing outlives the script. Prints JSON:
  {"compared": [call...], "skipped": {call: why}, "unexpected": [{"call", "only", "path"}],
   "allowed": [...], "stale": [allowlist entries no difference used], "errors": {call: {...}}}
"""

import ipaddress
import logging
import sys

from botocore.exceptions import ClientError
from moto.server import ThreadedMotoServer

from ec2_wire import AL2023_X86, DISCOVERY, client, instance_states, poll, run_main, shape

# Differences that are not ours to fix, each with the reason. Key: (call, side that has the path,
# path); a path covers everything below it. "ours" = only the emulator returns it, "moto" = only
# moto does. Every entry must still be needed: unused ones are reported as stale. What is NOT
# here fails the test: a member real EC2 returns and the emulator does not.
MOTO_OMITS = "moto omits it; real EC2 returns it (EC2 API reference)"
NOT_A_FACT = ("the catalog holds facts only (issue 5: vCPU, memory, architecture, ENIs, IPs, EFA, "
              "GPUs, price); Karpenter does not read it")
INSTANCE_FIELDS = [
    "CapacityReservationSpecification", "EnaSupport", "EnclaveOptions",
    "HibernationOptions.Configured", "MaintenanceOptions", "NetworkInterfaces[].PrivateDnsName",
    "NetworkInterfaces[].PrivateIpAddresses[].PrivateDnsName", "Placement.AvailabilityZoneId",
    "PlatformDetails", "PrivateDnsNameOptions", "PublicDnsName", "UsageOperation",
]
MOTO_DESCRIBED_JUNK = {
    # EC2 gives a stateReason to pending, stopped and terminated instances; ours are running
    # by the time they are described, while moto's running ones have one too.
    "StateReason": "moto sets it on running instances",
}
MOTO_INSTANCE_JUNK = {
    # Our subnets do not map public IPs, so EC2 gives the interface no association; moto
    # associates a public IP with every interface.
    "NetworkInterfaces[].Association": "moto adds a public IP to every interface",
    # EC2 reports sriovNetSupport only where it was enabled on the instance.
    "SriovNetSupport": "moto sets it on every instance",
}
INSTANCE_TYPE_NON_FACTS = [
    "AutoRecoverySupported", "DedicatedHostsSupported", "EbsInfo.AttachmentLimitType",
    "EbsInfo.MaximumEbsAttachments", "EbsInfo.EbsOptimizedInfo.BaselineIops",
    "EbsInfo.EbsOptimizedInfo.BaselineThroughputInMBps", "EbsInfo.EbsOptimizedInfo.MaximumIops",
    "EbsInfo.EbsOptimizedInfo.MaximumThroughputInMBps", "HibernationSupported",
    "NetworkInfo.ConnectionTrackingConfiguration", "NetworkInfo.EnaSrdSupported",
    "NetworkInfo.FlexibleEnaQueuesSupport",
    "NetworkInfo.NetworkCards[].DefaultEnaQueueCountPerInterface",
    "NetworkInfo.NetworkCards[].NetworkPerformance",
    "NetworkInfo.NetworkCards[].PeakBandwidthInGbps", "NetworkInfo.NetworkPerformance",
    "NetworkInfo.SecondaryNetworkSupported", "NitroEnclavesSupport", "NitroTpmInfo",
    "NitroTpmSupport", "PhcSupport", "PlacementGroupInfo", "RebootMigrationSupport",
    "VCpuInfo.ValidCores", "VCpuInfo.ValidThreadsPerCore",
]
# The data's ebsBandwidthMbps (Karpenter's instance-ebs-bandwidth label) is the maximum EBS
# bandwidth, which the emulator reports; the baseline is in no source of the data.
EBS_BASELINE = ("the reference data has the maximum EBS bandwidth only (Karpenter's label); the "
                "baseline is not a known fact")
# Only the GPU and EFA types of DescribeInstanceTypes have these.
ACCELERATED_NON_FACTS = [
    "GpuInfo.Gpus[].GpuPartitionSize", "GpuInfo.Gpus[].LogicalGpuCount", "GpuInfo.Gpus[].Workloads",
    "NetworkInfo.Ipv4AddressesPerSecondaryInterface",
]
ALLOWED = {
    **{("DescribeAvailabilityZones", "ours", "AvailabilityZones[]." + f): MOTO_OMITS
       for f in ("GroupName", "NetworkBorderGroup", "OptInStatus")},
    **{(call, "moto", "InstanceTypes[]." + f): NOT_A_FACT
       for call in ("DescribeInstanceTypes", "DescribeInstanceTypes.Page")
       for f in INSTANCE_TYPE_NON_FACTS},
    **{("DescribeInstanceTypes", "moto", "InstanceTypes[]." + f): NOT_A_FACT
       for f in ACCELERATED_NON_FACTS},
    **{(call, "moto", "InstanceTypes[].EbsInfo.EbsOptimizedInfo.BaselineBandwidthInMbps"):
       EBS_BASELINE for call in ("DescribeInstanceTypes", "DescribeInstanceTypes.Page")},
    ("DescribeVpcs", "ours", "Vpcs[].Ipv6CidrBlockAssociationSet[].NetworkBorderGroup"):
        MOTO_OMITS,
    ("DescribeInstanceTypes.Page", "ours", "NextToken"): "moto ignores MaxResults: one page",
    **{("DescribeImages", "ours", "Images[]." + f): MOTO_OMITS
       for f in ("BlockDeviceMappings[].Ebs.Encrypted", "EnaSupport", "ImageLocation",
                 "PlatformDetails", "SriovNetSupport", "UsageOperation")},
    ("DescribeSpotPriceHistory", "ours", "SpotPriceHistory[].AvailabilityZoneId"): MOTO_OMITS,
    **{("RunInstances", "ours", "Instances[]." + f): MOTO_OMITS for f in INSTANCE_FIELDS},
    **{(call, "ours", "Reservations[].Instances[]." + f): MOTO_OMITS
       for call in ("DescribeInstances", "DescribeInstances.Fleet") for f in INSTANCE_FIELDS},
    **{("RunInstances", "moto", "Instances[]." + f): why for f, why in MOTO_INSTANCE_JUNK.items()},
    **{(call, "moto", "Reservations[].Instances[]." + f): why
       for call in ("DescribeInstances", "DescribeInstances.Fleet")
       for f, why in {**MOTO_INSTANCE_JUNK, **MOTO_DESCRIBED_JUNK}.items()},
    # moto drops what the launch template gives fleet instances: the interfaces' security
    # groups, hibernation options and the client token EC2 Fleet launches with.
    ("DescribeInstances.Fleet", "ours", "Reservations[].Instances[].SecurityGroups"):
        "moto ignores the template's interface groups",
    ("DescribeInstances.Fleet", "ours", "Reservations[].Instances[].HibernationOptions"):
        MOTO_OMITS,
    ("DescribeInstances.Fleet", "ours", "Reservations[].Instances[].ClientToken"): MOTO_OMITS,
    # GUESS: EC2 names the launching service's account for instances EC2 Fleet launched.
    ("DescribeInstances.Fleet", "ours", "Reservations[].RequesterId"): MOTO_OMITS,
    **{("DeleteLaunchTemplate", "ours", "LaunchTemplate." + f): MOTO_OMITS
       for f in ("CreateTime", "CreatedBy", "LatestVersionNumber")},
}

# Calls whose error codes may differ: moto accepts what EC2 rejects.
ERRORS_ALLOWED = {
    "DescribeLaunchTemplates.Unknown": "moto answers an unknown id with an empty list",
    "RunInstances.UnknownImage": "moto launches any AMI id",
}

# Facts of DescribeInstanceTypes whose values must agree with moto's copy of EC2's data.
FACTS = [
    "VCpuInfo.DefaultVCpus", "MemoryInfo.SizeInMiB", "ProcessorInfo.SupportedArchitectures",
    "Hypervisor", "BareMetal", "BurstablePerformanceSupported", "InstanceStorageSupported",
    "NetworkInfo.MaximumNetworkInterfaces", "NetworkInfo.MaximumNetworkCards",
    "NetworkInfo.Ipv4AddressesPerInterface", "NetworkInfo.EfaSupported",
    "NetworkInfo.EfaInfo.MaximumEfaInterfaces", "NetworkInfo.EncryptionInTransitSupported",
    "GpuInfo.Gpus[0].Count",
]

BOGUS = {"instance": "i-0123456789abcdef0", "image": "ami-0123456789abcdef0",
         "subnet": "subnet-0123456789abcdef0", "group": "sg-0123456789abcdef0",
         "template": "lt-0123456789abcdef0"}
MOTO_AL2023 = "/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64"


def seed_moto(ec2):
    """What the emulator's default world has, made in moto: a VPC whose three subnets and node
    security group carry the discovery tag."""
    tags = [{"Key": "karpenter.sh/discovery", "Value": "nodewright"}]
    vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16", AmazonProvidedIpv6CidrBlock=True,
                         TagSpecifications=[{"ResourceType": "vpc", "Tags": tags}])["Vpc"]["VpcId"]
    block = ec2.describe_vpcs(VpcIds=[vpc])["Vpcs"][0]["Ipv6CidrBlockAssociationSet"][0]
    ipv6 = ipaddress.ip_network(block["Ipv6CidrBlock"]).subnets(new_prefix=64)
    for i, zone in enumerate(["us-east-1a", "us-east-1b", "us-east-1c"]):
        ec2.create_subnet(VpcId=vpc, CidrBlock="10.0.%d.0/19" % (i * 32), AvailabilityZone=zone,
                          Ipv6CidrBlock=str(next(ipv6)),
                          TagSpecifications=[{"ResourceType": "subnet", "Tags": tags}])
    ec2.create_security_group(VpcId=vpc, GroupName="nodewright-node", Description="nodes",
                              TagSpecifications=[{"ResourceType": "security-group", "Tags": tags}])


class Side:
    """One endpoint and the ids the calls use there."""

    def __init__(self, name, endpoint):
        self.name = name
        self.ec2 = client("ec2", endpoint)
        self.ssm = client("ssm", endpoint)
        subnets = sorted(self.ec2.describe_subnets(Filters=DISCOVERY)["Subnets"],
                         key=lambda s: s["AvailabilityZone"])
        self.vpc = subnets[0]["VpcId"]
        self.subnets = [s["SubnetId"] for s in subnets]
        self.group = self.ec2.describe_security_groups(Filters=DISCOVERY)["SecurityGroups"][0]["GroupId"]
        if name == "moto":
            # moto's default AMIs have no EKS parameters; its AL2023 image is the closest.
            self.parameter = MOTO_AL2023
            self.image = self.ec2.describe_images(Owners=["amazon"], Filters=[
                {"Name": "architecture", "Values": ["x86_64"]},
                {"Name": "name", "Values": ["al2023-ami-2023*"]}])["Images"][0]["ImageId"]
        else:
            self.parameter = AL2023_X86
            self.image = self.ssm.get_parameter(Name=AL2023_X86)["Parameter"]["Value"]
        self.template = None
        self.fleet_instances = []
        self.instance = None


def tags(resource, key, value):
    return [{"ResourceType": resource, "Tags": [{"Key": key, "Value": value}]}]


def create_launch_template(s):
    r = s.ec2.create_launch_template(
        LaunchTemplateName="conformance",
        LaunchTemplateData={
            "ImageId": s.image,
            "NetworkInterfaces": [{"DeviceIndex": d, "NetworkCardIndex": 0, "Groups": [s.group],
                                   "DeleteOnTermination": True} for d in (0, 1)],
            "TagSpecifications": tags("instance", "karpenter.sh/nodepool", "default"),
        },
        TagSpecifications=tags("launch-template", "karpenter.k8s.aws/cluster", "nodewright"))
    s.template = r["LaunchTemplate"]["LaunchTemplateId"]
    return r


def create_fleet(s):
    r = s.ec2.create_fleet(
        Type="instant",
        TargetCapacitySpecification={"TotalTargetCapacity": 2,
                                     "DefaultTargetCapacityType": "on-demand"},
        LaunchTemplateConfigs=[{
            "LaunchTemplateSpecification": {"LaunchTemplateId": s.template, "Version": "$Latest"},
            "Overrides": [{"InstanceType": "m5.large", "SubnetId": s.subnets[0]}],
        }],
        TagSpecifications=tags("instance", "karpenter.sh/nodeclaim", "conformance"))
    s.fleet_instances = [i for g in r["Instances"] for i in g["InstanceIds"]]
    return r


def run_instances(s):
    r = s.ec2.run_instances(ImageId=s.image, InstanceType="m5.large", MinCount=1, MaxCount=1,
                            SubnetId=s.subnets[1], SecurityGroupIds=[s.group],
                            TagSpecifications=tags("instance", "Name", "conformance"))
    s.instance = r["Instances"][0]["InstanceId"]
    return r


def await_running(s):
    ids = [s.instance] + s.fleet_instances
    poll(lambda: s.ec2.describe_instances(InstanceIds=ids)["Reservations"],
         lambda r: set(instance_states(r).values()) == {"running"}, 30, "running")
    return {}


# (call name, function of a Side). Each runs on both sides, in this order; names starting with
# "_" are steps between calls, not compared.
CALLS = [
    ("DescribeAvailabilityZones", lambda s: s.ec2.describe_availability_zones(
        ZoneNames=["us-east-1a", "us-east-1b", "us-east-1c"])),
    ("DescribeInstanceTypes", lambda s: s.ec2.describe_instance_types(
        InstanceTypes=["m5.large", "c7g.large", "p4d.24xlarge", "g5.xlarge"])),
    ("DescribeInstanceTypes.Page", lambda s: s.ec2.describe_instance_types(
        Filters=[{"Name": "instance-type", "Values": ["m5.*"]}], MaxResults=5)),
    ("DescribeInstanceTypeOfferings", lambda s: s.ec2.describe_instance_type_offerings(
        LocationType="availability-zone",
        Filters=[{"Name": "instance-type", "Values": ["m5.large"]}])),
    ("DescribeVpcs", lambda s: s.ec2.describe_vpcs(VpcIds=[s.vpc])),
    ("DescribeSubnets", lambda s: s.ec2.describe_subnets(Filters=DISCOVERY)),
    ("DescribeSecurityGroups", lambda s: s.ec2.describe_security_groups(Filters=DISCOVERY)),
    ("DescribeImages", lambda s: s.ec2.describe_images(ImageIds=[s.image])),
    ("DescribeSpotPriceHistory", lambda s: s.ec2.describe_spot_price_history(
        InstanceTypes=["m5.large"], ProductDescriptions=["Linux/UNIX"],
        AvailabilityZone="us-east-1a")),
    ("GetParameter", lambda s: s.ssm.get_parameter(Name=s.parameter)),
    ("CreateLaunchTemplate", create_launch_template),
    ("DescribeLaunchTemplates", lambda s: s.ec2.describe_launch_templates(
        LaunchTemplateIds=[s.template])),
    ("DescribeLaunchTemplateVersions", lambda s: s.ec2.describe_launch_template_versions(
        LaunchTemplateId=s.template, Versions=["$Latest"])),
    ("CreateFleet", create_fleet),
    ("RunInstances", run_instances),
    ("_AwaitRunning", await_running),
    ("DescribeInstances", lambda s: s.ec2.describe_instances(InstanceIds=[s.instance])),
    ("DescribeInstances.Fleet", lambda s: s.ec2.describe_instances(
        InstanceIds=s.fleet_instances)),
    ("CreateTags", lambda s: s.ec2.create_tags(
        Resources=[s.instance], Tags=[{"Key": "team", "Value": "wire"}])),
    ("DeleteTags", lambda s: s.ec2.delete_tags(Resources=[s.instance], Tags=[{"Key": "team"}])),
    ("TerminateInstances", lambda s: s.ec2.terminate_instances(
        InstanceIds=[s.instance] + s.fleet_instances)),
    ("DeleteLaunchTemplate", lambda s: s.ec2.delete_launch_template(LaunchTemplateId=s.template)),
]

# Calls that must fail; the codes must agree.
ERROR_CALLS = [
    ("DescribeInstances.Unknown", lambda s: s.ec2.describe_instances(InstanceIds=[BOGUS["instance"]])),
    ("DescribeImages.Unknown", lambda s: s.ec2.describe_images(ImageIds=[BOGUS["image"]])),
    ("DescribeSubnets.Unknown", lambda s: s.ec2.describe_subnets(SubnetIds=[BOGUS["subnet"]])),
    ("DescribeSecurityGroups.Unknown", lambda s: s.ec2.describe_security_groups(
        GroupIds=[BOGUS["group"]])),
    ("DescribeLaunchTemplates.Unknown", lambda s: s.ec2.describe_launch_templates(
        LaunchTemplateIds=[BOGUS["template"]])),
    ("TerminateInstances.Unknown", lambda s: s.ec2.terminate_instances(
        InstanceIds=[BOGUS["instance"]])),
    ("RunInstances.UnknownImage", lambda s: s.ec2.run_instances(
        ImageId=BOGUS["image"], InstanceType="m5.large", MinCount=1, MaxCount=1,
        SubnetId=s.subnets[0])),
    ("GetParameter.Unknown", lambda s: s.ssm.get_parameter(Name="/nodewright/missing")),
]


def fact(record, path):
    value = record
    for part in path.split("."):
        index = None
        if part.endswith("]"):
            part, index = part[:-1].split("[")
        value = value.get(part) if isinstance(value, dict) else None
        if index is not None:
            value = value[int(index)] if isinstance(value, list) and len(value) > int(index) else None
    return value


def compare_facts(moto, ours):
    """The FACTS of the types both describe, where they disagree."""
    call = dict(CALLS)["DescribeInstanceTypes"]
    theirs = {t["InstanceType"]: t for t in call(moto)["InstanceTypes"]}
    out = []
    for mine in call(ours)["InstanceTypes"]:
        other = theirs.get(mine["InstanceType"])
        for path in FACTS if other else []:
            if fact(mine, path) != fact(other, path):
                out.append({"call": "DescribeInstanceTypes", "only": "value", "path": "%s %s: moto %s, ours %s" % (
                    mine["InstanceType"], path, fact(other, path), fact(mine, path))})
    return out


def allowed_by(call, only, path):
    for (c, o, p), _ in ALLOWED.items():
        if c == call and o == only and (path == p or path.startswith(p + ".") or
                                        path.startswith(p + "[")):
            return (c, o, p)
    return None


def not_implemented(error):
    code = error.response["Error"]["Code"]
    return code in ("InternalFailure", "NotImplemented") or "not yet implemented" in str(error)


def main():
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = ThreadedMotoServer("127.0.0.1", 0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        moto_endpoint = "http://%s:%d" % (host, port)
        seed_moto(client("ec2", moto_endpoint))
        moto, ours = Side("moto", moto_endpoint), Side("ours", sys.argv[1])
        return compare(moto, ours)
    finally:
        server.stop()


def compare(moto, ours):
    out = {"compared": [], "skipped": {}, "unexpected": [], "allowed": [], "errors": {}}
    used = set()
    for name, call in CALLS:
        try:
            theirs = call(moto)
        except ClientError as e:
            if not_implemented(e):
                out["skipped"][name] = "moto: " + str(e)
                call(ours)  # keep both sides' state in step
                continue
            raise
        mine = call(ours)
        if name.startswith("_"):
            continue
        out["compared"].append(name)
        theirs_shape, mine_shape = shape(theirs), shape(mine)
        for only, paths in (("moto", theirs_shape - mine_shape), ("ours", mine_shape - theirs_shape)):
            for path in sorted(paths):
                entry = {"call": name, "only": only, "path": path}
                key = allowed_by(name, only, path)
                if key:
                    used.add(key)
                    out["allowed"].append(entry)
                else:
                    out["unexpected"].append(entry)
    for entry in compare_facts(moto, ours):
        out["unexpected"].append(entry)
    for name, call in ERROR_CALLS:
        codes = {}
        for side in (moto, ours):
            try:
                call(side)
                codes[side.name] = "(accepted)"
            except ClientError as e:
                codes[side.name] = e.response["Error"]["Code"]
        out["errors"][name] = codes
        if codes["moto"] != codes["ours"] and name not in ERRORS_ALLOWED:
            out["unexpected"].append({"call": name, "only": "error code", "path": str(codes)})
    out["stale"] = [{"call": c, "only": o, "path": p} for (c, o, p) in ALLOWED
                    if (c, o, p) not in used]
    return out


if __name__ == "__main__":
    run_main(main)
