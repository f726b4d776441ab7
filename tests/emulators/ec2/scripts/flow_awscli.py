"""The whole launch flow with the aws command (awscli), each step a separate process whose
--output json must parse: describe instance types, subnets, security groups and images;
create-launch-template with two network interfaces; create-fleet instant; describe-instances
until running; terminate-instances; delete-launch-template.

Usage: flow_awscli.py ENDPOINT CLIENT_TOKEN. Prints {"fleetId", "instanceIds", "calls"} as JSON.
"""

import json
import subprocess
import sys

from ec2_wire import AL2023_X86, Failure, check, instance_states, poll, run_main

DISCOVERY = "Name=tag:karpenter.sh/discovery,Values=nodewright"


class Aws:
    def __init__(self, endpoint):
        self.endpoint = endpoint
        self.calls = []

    def __call__(self, service, command, *args):
        argv = ["aws", "--endpoint-url", self.endpoint, "--region", "us-east-1", "--output", "json",
                service, command, *args]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        self.calls.append(service + " " + command)
        if done.returncode != 0:
            raise Failure("%s exited %d: %s" % (" ".join(argv[7:]), done.returncode, done.stderr))
        if not done.stdout.strip():
            return {}
        try:
            return json.loads(done.stdout)
        except ValueError as e:
            raise Failure("%s printed no JSON (%s): %s" % (command, e, done.stdout[:2000]))


def main():
    endpoint, token = sys.argv[1], sys.argv[2]
    aws = Aws(endpoint)

    types = aws("ec2", "describe-instance-types", "--instance-types", "m5.large")["InstanceTypes"]
    check(types[0]["NetworkInfo"]["MaximumNetworkInterfaces"] == 3, "m5.large", types)
    # awscli follows NextToken itself; a small page size makes it.
    every = aws("ec2", "describe-instance-types", "--page-size", "25")["InstanceTypes"]
    names = [t["InstanceType"] for t in every]
    check(len(names) == len(set(names)) and len(names) > 50, "every type once", len(names))

    subnets = aws("ec2", "describe-subnets", "--filters", DISCOVERY)["Subnets"]
    check(len(subnets) == 3, "three subnets", subnets)
    subnets.sort(key=lambda s: s["AvailabilityZone"])
    groups = aws("ec2", "describe-security-groups", "--filters", DISCOVERY)["SecurityGroups"]
    check(len(groups) >= 1, "a security group", groups)
    group = groups[0]["GroupId"]
    image_id = aws("ssm", "get-parameter", "--name", AL2023_X86)["Parameter"]["Value"]
    images = aws("ec2", "describe-images", "--image-ids", image_id)["Images"]
    check(len(images) == 1 and images[0]["Architecture"] == "x86_64", "the AMI", images)

    data = {
        "ImageId": image_id,
        "NetworkInterfaces": [{"DeviceIndex": d, "NetworkCardIndex": 0, "Groups": [group],
                               "DeleteOnTermination": True} for d in (0, 1)],
    }
    template = aws("ec2", "create-launch-template", "--launch-template-name", "wire-awscli",
                   "--launch-template-data", json.dumps(data))["LaunchTemplate"]
    template_id = template["LaunchTemplateId"]
    versions = aws("ec2", "describe-launch-template-versions", "--launch-template-id", template_id,
                   "--versions", "$Latest")["LaunchTemplateVersions"]
    check(len(versions[0]["LaunchTemplateData"]["NetworkInterfaces"]) == 2, "stored", versions)

    configs = [{
        "LaunchTemplateSpecification": {"LaunchTemplateId": template_id, "Version": "$Latest"},
        "Overrides": [{"InstanceType": "m5.large", "SubnetId": s["SubnetId"]} for s in subnets],
    }]
    fleet = aws("ec2", "create-fleet", "--type", "instant", "--client-token", token,
                "--target-capacity-specification",
                "TotalTargetCapacity=3,DefaultTargetCapacityType=on-demand",
                "--launch-template-configs", json.dumps(configs))
    check(fleet.get("Errors", []) == [], "no launch errors", fleet)
    ids = [i for g in fleet["Instances"] for i in g["InstanceIds"]]
    check(len(ids) == 3, "three instances", fleet)

    reservations = poll(
        lambda: aws("ec2", "describe-instances", "--instance-ids", *ids)["Reservations"],
        lambda r: set(instance_states(r).values()) == {"running"}, 30, "running")
    for r in reservations:
        for i in r["Instances"]:
            check(len(i["NetworkInterfaces"]) == 2, "two interfaces", i)

    aws("ec2", "create-tags", "--resources", *ids, "--tags", "Key=Name,Value=wire-awscli")
    terminating = aws("ec2", "terminate-instances", "--instance-ids", *ids)["TerminatingInstances"]
    check(sorted(t["InstanceId"] for t in terminating) == sorted(ids), "terminating", terminating)
    poll(lambda: aws("ec2", "describe-instances", "--filters",
                     "Name=instance-id,Values=" + ",".join(ids))["Reservations"],
         lambda r: set(instance_states(r).values()) <= {"terminated"}, 30, "terminated")
    aws("ec2", "delete-launch-template", "--launch-template-id", template_id)
    return {"fleetId": fleet["FleetId"], "instanceIds": ids, "calls": aws.calls}


if __name__ == "__main__":
    run_main(main)
