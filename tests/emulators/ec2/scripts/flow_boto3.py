"""The whole launch flow with boto3, as Karpenter's AWS provider runs it: discover instance
types, subnets, security groups and an AMI; create a launch template with two network
interfaces; launch with an instant fleet; wait until running; terminate; wait until gone.

Usage: flow_boto3.py ENDPOINT CLIENT_TOKEN. Prints {"fleetId", "instanceIds", ...} as JSON.
"""

import sys

from ec2_wire import (AL2023_ARM, AL2023_X86, DISCOVERY, check, client, instance_states, poll,
                      run_main)


def discover(ec2, ssm):
    types = ec2.describe_instance_types(InstanceTypes=["m5.large"])["InstanceTypes"]
    check(len(types) == 1 and types[0]["InstanceType"] == "m5.large", "m5.large", types)
    check(types[0]["NetworkInfo"]["MaximumNetworkInterfaces"] == 3, "m5.large ENIs", types[0])
    check(types[0]["ProcessorInfo"]["SupportedArchitectures"] == ["x86_64"], "m5.large arch", types[0])

    # Every type, 20 a page: the paginator follows NextToken to the end.
    pages = list(ec2.get_paginator("describe_instance_types").paginate(
        PaginationConfig={"PageSize": 20}))
    names = [t["InstanceType"] for p in pages for t in p["InstanceTypes"]]
    check(len(pages) > 1, "several pages of instance types", len(pages))
    check(len(names) == len(set(names)) and len(names) > 50, "each type once", len(names))

    offerings = ec2.describe_instance_type_offerings(
        LocationType="availability-zone",
        Filters=[{"Name": "instance-type", "Values": ["m5.large"]}])["InstanceTypeOfferings"]
    check(sorted(o["Location"] for o in offerings) == ["us-east-1a", "us-east-1b", "us-east-1c"],
          "m5.large offered in every zone", offerings)
    zones = ec2.describe_availability_zones()["AvailabilityZones"]
    check(len(zones) == 3 and all(z["State"] == "available" for z in zones), "zones", zones)

    subnets = ec2.describe_subnets(Filters=DISCOVERY)["Subnets"]
    check(len(subnets) == 3, "three discovered subnets", subnets)
    vpcs = {s["VpcId"] for s in subnets}
    check(len(vpcs) == 1, "subnets of one VPC", subnets)
    groups = ec2.describe_security_groups(Filters=DISCOVERY)["SecurityGroups"]
    check(len(groups) >= 1 and all(g["VpcId"] in vpcs for g in groups), "security groups", groups)

    image_id = ssm.get_parameter(Name=AL2023_X86)["Parameter"]["Value"]
    images = ec2.describe_images(ImageIds=[image_id])["Images"]
    check(len(images) == 1 and images[0]["Architecture"] == "x86_64", "the AL2023 AMI", images)
    arm_id = ssm.get_parameter(Name=AL2023_ARM)["Parameter"]["Value"]
    arm = ec2.describe_images(Owners=["amazon"], Filters=[
        {"Name": "architecture", "Values": ["arm64"]}])["Images"]
    check(arm_id in [i["ImageId"] for i in arm], "the arm64 AMI among amazon's", arm_id)

    prices = ec2.describe_spot_price_history(
        InstanceTypes=["m5.large"], ProductDescriptions=["Linux/UNIX"])["SpotPriceHistory"]
    check(len(prices) >= 1 and all(float(p["SpotPrice"]) > 0 for p in prices), "spot prices", prices)
    return sorted(subnets, key=lambda s: s["AvailabilityZone"]), groups[0]["GroupId"], image_id


def create_template(ec2, group, image_id):
    # Karpenter v1.14 sends an EC2NodeClass's connectionTracking on every interface and its
    # cpuOptions.nestedVirtualization as CpuOptions; both must come back as sent.
    tracking = {"TcpEstablishedTimeout": 600, "UdpStreamTimeout": 90, "UdpTimeout": 45}
    interfaces = [{"DeviceIndex": d, "NetworkCardIndex": 0, "Groups": [group],
                   "DeleteOnTermination": True, "ConnectionTrackingSpecification": tracking}
                  for d in (0, 1)]
    template = ec2.create_launch_template(
        LaunchTemplateName="wire-boto3",
        LaunchTemplateData={
            "ImageId": image_id,
            "NetworkInterfaces": interfaces,
            "CpuOptions": {"NestedVirtualization": "disabled"},
            "TagSpecifications": [{"ResourceType": "instance",
                                   "Tags": [{"Key": "karpenter.sh/nodepool", "Value": "default"}]}],
        })["LaunchTemplate"]
    template_id = template["LaunchTemplateId"]
    check(template["LatestVersionNumber"] == 1, "version 1", template)
    listed = ec2.describe_launch_templates(LaunchTemplateIds=[template_id])["LaunchTemplates"]
    check([t["LaunchTemplateName"] for t in listed] == ["wire-boto3"], "listed template", listed)
    versions = ec2.describe_launch_template_versions(
        LaunchTemplateId=template_id, Versions=["$Latest"])["LaunchTemplateVersions"]
    data = versions[0]["LaunchTemplateData"]
    check(len(data["NetworkInterfaces"]) == 2 and data["ImageId"] == image_id, "stored data", data)
    check([n.get("ConnectionTrackingSpecification") for n in data["NetworkInterfaces"]]
          == [tracking, tracking], "connection tracking on each interface", data)
    check(data.get("CpuOptions") == {"NestedVirtualization": "disabled"}, "cpu options", data)
    return template_id


def launch(ec2, template_id, subnets, token):
    fleet = ec2.create_fleet(
        Type="instant",
        ClientToken=token,
        TargetCapacitySpecification={"TotalTargetCapacity": 2,
                                     "DefaultTargetCapacityType": "on-demand"},
        OnDemandOptions={"AllocationStrategy": "lowest-price"},
        LaunchTemplateConfigs=[{
            "LaunchTemplateSpecification": {"LaunchTemplateId": template_id, "Version": "$Latest"},
            "Overrides": [{"InstanceType": "m5.large", "SubnetId": subnets[0]["SubnetId"]},
                          {"InstanceType": "m5.xlarge", "SubnetId": subnets[1]["SubnetId"]}],
        }],
        TagSpecifications=[{"ResourceType": "instance",
                            "Tags": [{"Key": "karpenter.sh/nodeclaim", "Value": "wire"}]}])
    check(fleet["FleetId"].startswith("fleet-"), "a fleet id", fleet)
    check(fleet.get("Errors", []) == [], "no launch errors", fleet)
    ids = [i for group in fleet["Instances"] for i in group["InstanceIds"]]
    check(len(ids) == 2, "two instances", fleet)
    # lowest-price: the cheaper override, m5.large.
    check({g["LaunchTemplateAndOverrides"]["Overrides"]["InstanceType"] for g in fleet["Instances"]}
          == {"m5.large"}, "lowest price picks m5.large", fleet)
    return fleet["FleetId"], ids


def await_running(ec2, ids):
    reservations = poll(lambda: ec2.describe_instances(InstanceIds=ids)["Reservations"],
                        lambda r: set(instance_states(r).values()) == {"running"}, 30, "running")
    for r in reservations:
        for i in r["Instances"]:
            check(i["InstanceType"] == "m5.large" and len(i["NetworkInterfaces"]) == 2,
                  "two interfaces", i)
            check(sorted(n["Attachment"]["DeviceIndex"] for n in i["NetworkInterfaces"]) == [0, 1],
                  "device indexes", i)
            check(i["PrivateIpAddress"] and i["Placement"]["AvailabilityZone"] == "us-east-1a",
                  "placement", i)
            tags = {t["Key"]: t["Value"] for t in i.get("Tags", [])}
            check(tags.get("karpenter.sh/nodepool") == "default" and
                  tags.get("karpenter.sh/nodeclaim") == "wire", "template and fleet tags", i)
    # The same instances through filters and pagination, as the provider lists them.
    found = []
    for page in ec2.get_paginator("describe_instances").paginate(
            Filters=[{"Name": "instance-state-name", "Values": ["running"]},
                     {"Name": "tag:karpenter.sh/nodeclaim", "Values": ["wire"]}],
            PaginationConfig={"PageSize": 5}):
        found += [i["InstanceId"] for r in page["Reservations"] for i in r["Instances"]]
    check(sorted(found) == sorted(ids), "filtered listing", found)


def terminate(ec2, ids):
    ec2.create_tags(Resources=ids, Tags=[{"Key": "Name", "Value": "wire-boto3"}])
    terminating = ec2.terminate_instances(InstanceIds=ids)["TerminatingInstances"]
    check(sorted(t["InstanceId"] for t in terminating) == sorted(ids), "terminating", terminating)
    check(all(t["PreviousState"]["Name"] == "running" and
              t["CurrentState"]["Name"] in ("shutting-down", "terminated") for t in terminating),
          "states", terminating)
    # Terminated instances stay visible for a while; either way they must get there.
    poll(lambda: ec2.describe_instances(
             Filters=[{"Name": "instance-id", "Values": ids}])["Reservations"],
         lambda r: set(instance_states(r).values()) <= {"terminated"}, 30, "terminated")


def main():
    endpoint, token = sys.argv[1], sys.argv[2]
    ec2, ssm = client("ec2", endpoint), client("ssm", endpoint)
    subnets, group, image_id = discover(ec2, ssm)
    template_id = create_template(ec2, group, image_id)
    fleet_id, ids = launch(ec2, template_id, subnets, token)
    await_running(ec2, ids)
    terminate(ec2, ids)
    ec2.delete_launch_template(LaunchTemplateId=template_id)
    return {"fleetId": fleet_id, "instanceIds": ids, "launchTemplateId": template_id}


if __name__ == "__main__":
    run_main(main)
