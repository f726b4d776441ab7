"""What the EC2 wire tests' Python clients share: boto3 clients for an endpoint, the ids a
client discovers the way Karpenter does, bounded polling, and response shapes.

The C++ tests run these scripts with AWS_* variables of their own (access key nodewright,
empty config files, no instance metadata), so nothing of the user's AWS setup is read.
"""

import json
import sys
import time

import boto3
from botocore.config import Config

DISCOVERY = [{"Name": "tag:karpenter.sh/discovery", "Values": ["nodewright"]}]
AL2023_X86 = "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id"
AL2023_ARM = "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/arm64/standard/recommended/image_id"


class Failure(Exception):
    """A check of the flow failed; the script prints it and exits 1."""


def check(condition, message, *details):
    if not condition:
        raise Failure(message + "".join("\n  " + json.dumps(d, default=str)[:2000] for d in details))


def client(service, endpoint):
    # One attempt: a throttled or failed call must show, not be retried away.
    return boto3.session.Session().client(
        service,
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="nodewright",
        aws_secret_access_key="nodewright",
        config=Config(retries={"max_attempts": 1, "mode": "standard"}),
    )


def poll(describe, done, timeout, what):
    """Calls describe() until done(result) holds, for at most `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        result = describe()
        if done(result):
            return result
        if time.monotonic() > deadline:
            raise Failure("timed out waiting for " + what + ": " + json.dumps(result, default=str)[:2000])
        time.sleep(0.05)


def instance_states(reservations):
    return {i["InstanceId"]: i["State"]["Name"] for r in reservations for i in r["Instances"]}


def shape(value, path=""):
    """The set of key paths of a response, lists collapsed to "[]", ResponseMetadata left out.
    An empty list is a value, not shape: botocore gives [] both for an empty wrapper element and
    (for some members) for none, so its key is left out too."""
    out = set()
    if isinstance(value, dict):
        for key, child in value.items():
            if key == "ResponseMetadata" or child == []:
                continue
            child_path = path + "." + key if path else key
            out.add(child_path)
            out |= shape(child, child_path)
    elif isinstance(value, list):
        for child in value:
            out |= shape(child, path + "[]")
    return out


def run_main(main):
    """Runs main() and prints its result as JSON; a Failure or any exception exits 1."""
    try:
        result = main()
    except Failure as e:
        print("FAILED: " + str(e), file=sys.stderr)
        sys.exit(1)
    print(json.dumps(result, default=str, sort_keys=True))
