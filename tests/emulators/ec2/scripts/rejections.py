"""Runs a table of invalid launches with boto3 and prints what EC2 (the emulator) answered.

Usage: rejections.py ENDPOINT CASES_JSON_FILE
Each case is {"name", "via": "run" | "fleet", "params": {...}, "nics": [...], "template": {...}}:
  run    RunInstances with a valid m5.large launch (AL2023 x86_64 AMI, a discovered subnet and
         security group) updated with "params"; "nics" replace the subnet and groups by
         NetworkInterfaces, each {"card", "device", "type"} plus any boto3 member
         (a NIC without SubnetId/Groups gets the launch's);
  fleet  CreateFleet type instant with a launch template holding the same valid data updated
         with "template" (and "nics"), and "params" merged into the CreateFleet request.
Strings starting with "$" name discovered ids: $ami_x86, $ami_arm, $subnet, $subnet_b, $sg,
$foreign_sg (a group of another VPC), $foreign_subnet; other "$name"s come from the command line
as name=value after the file.
Prints {name: {"code", "message", "where"}} where "where" is "error" (a ClientError),
"fleet-errors" (CreateFleet's Errors list) or "accepted" (no error at all).
"""

import copy
import json
import sys

from botocore.exceptions import ClientError

from ec2_wire import AL2023_ARM, AL2023_X86, DISCOVERY, client, run_main


def discover(ec2, ssm):
    subnets = sorted(ec2.describe_subnets(Filters=DISCOVERY)["Subnets"],
                     key=lambda s: s["AvailabilityZone"])
    vpc = subnets[0]["VpcId"]
    groups = ec2.describe_security_groups(Filters=DISCOVERY)["SecurityGroups"]
    foreign_groups = [g for g in ec2.describe_security_groups()["SecurityGroups"]
                      if g["VpcId"] != vpc]
    foreign_subnets = [s for s in ec2.describe_subnets()["Subnets"] if s["VpcId"] != vpc]
    return {
        "ami_x86": ssm.get_parameter(Name=AL2023_X86)["Parameter"]["Value"],
        "ami_arm": ssm.get_parameter(Name=AL2023_ARM)["Parameter"]["Value"],
        "subnet": subnets[0]["SubnetId"],
        "subnet_b": subnets[1]["SubnetId"],
        "sg": groups[0]["GroupId"],
        "foreign_sg": foreign_groups[0]["GroupId"],
        "foreign_subnet": foreign_subnets[0]["SubnetId"],
    }


def resolve(value, ids):
    # Our names are lower case; EC2's own "$Latest" and "$Default" pass through.
    if isinstance(value, str) and value.startswith("$") and value[1:2].islower():
        return ids[value[1:]]
    if isinstance(value, list):
        return [resolve(v, ids) for v in value]
    if isinstance(value, dict):
        return {k: resolve(v, ids) for k, v in value.items()}
    return value


def interfaces(case, default_subnet):
    """The case's NetworkInterfaces; a fleet's take their subnet from the override instead."""
    out = []
    for nic in case.get("nics", []):
        spec = {"DeviceIndex": nic.get("device", 0), "NetworkCardIndex": nic.get("card", 0),
                "InterfaceType": nic.get("type", "interface"), "Groups": ["$sg"]}
        if default_subnet:
            spec["SubnetId"] = "$subnet"
        spec.update({k: v for k, v in nic.items() if k not in ("card", "device", "type")})
        out.append(spec)
    return out


def run_case(ec2, case, ids):
    if case.get("via", "run") == "run":
        request = {"ImageId": "$ami_x86", "InstanceType": "m5.large", "MinCount": 1, "MaxCount": 1,
                   "SubnetId": "$subnet", "SecurityGroupIds": ["$sg"]}
        if case.get("nics"):
            del request["SubnetId"], request["SecurityGroupIds"]
            request["NetworkInterfaces"] = interfaces(case, default_subnet=True)
        request.update(case.get("params", {}))
        response = ec2.run_instances(**resolve(request, ids))
        return {"where": "accepted", "code": "", "message": "",
                "instances": [i["InstanceId"] for i in response["Instances"]]}

    data = {"ImageId": "$ami_x86", "SecurityGroupIds": ["$sg"]}
    if case.get("nics"):
        del data["SecurityGroupIds"]
        data["NetworkInterfaces"] = interfaces(case, default_subnet=False)
    data.update(case.get("template", {}))
    template_id = ec2.create_launch_template(
        LaunchTemplateName="reject-" + case["name"],
        LaunchTemplateData=resolve(data, ids))["LaunchTemplate"]["LaunchTemplateId"]
    request = {
        "Type": "instant",
        "TargetCapacitySpecification": {"TotalTargetCapacity": 1,
                                        "DefaultTargetCapacityType": "on-demand"},
        "LaunchTemplateConfigs": [{
            "LaunchTemplateSpecification": {"LaunchTemplateId": template_id, "Version": "$Latest"},
            "Overrides": [{"InstanceType": "m5.large", "SubnetId": "$subnet"}],
        }],
    }
    request.update(case.get("params", {}))
    try:
        response = ec2.create_fleet(**resolve(request, ids))
    finally:
        ec2.delete_launch_template(LaunchTemplateId=template_id)
    instances = [i for g in response.get("Instances", []) for i in g["InstanceIds"]]
    errors = response.get("Errors", [])
    if errors and not instances:
        return {"where": "fleet-errors", "code": errors[0]["ErrorCode"],
                "message": errors[0]["ErrorMessage"]}
    return {"where": "accepted", "code": "", "message": "", "instances": instances}


def main():
    endpoint, cases_file = sys.argv[1], sys.argv[2]
    ec2, ssm = client("ec2", endpoint), client("ssm", endpoint)
    ids = discover(ec2, ssm)
    for extra in sys.argv[3:]:
        name, value = extra.split("=", 1)
        ids[name] = value
    with open(cases_file) as f:
        cases = json.load(f)
    out = {}
    for case in cases:
        try:
            out[case["name"]] = run_case(ec2, copy.deepcopy(case), ids)
        except ClientError as e:
            out[case["name"]] = {"where": "error", "code": e.response["Error"]["Code"],
                                 "message": e.response["Error"].get("Message", ""),
                                 "status": e.response["ResponseMetadata"]["HTTPStatusCode"]}
    return out


if __name__ == "__main__":
    run_main(main)
