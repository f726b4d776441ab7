"""SQS on the EC2 emulator through real clients: boto3 (AWS JSON 1.0), the aws command, and the
Query protocol (form posts signed by botocore's SigV4 signer, XML answers parsed here).

The emulator runs at time scale 10: WaitTimeSeconds 20 is 2 s of real time, a visibility
timeout of 5 s is 0.5 s.

Usage: sqs_clients.py ENDPOINT. Prints {"wakeSeconds", "emptyPollSeconds", "calls"} as JSON.
"""

import hashlib
import json
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.exceptions import ClientError

from ec2_wire import Failure, check, client, run_main

NS = "{http://queue.amazonaws.com/doc/2012-11-05/}"


def boto3_flow(endpoint, out):
    sqs = client("sqs", endpoint)
    url = sqs.create_queue(QueueName="boto-q", Attributes={"VisibilityTimeout": "5"})["QueueUrl"]
    check(url.endswith("/123456789012/boto-q"), "queue URL", url)
    check(sqs.get_queue_url(QueueName="boto-q")["QueueUrl"] == url, "GetQueueUrl gives the URL")
    # The same name with the same attributes is the same queue.
    check(sqs.create_queue(QueueName="boto-q", Attributes={"VisibilityTimeout": "5"})["QueueUrl"] == url,
          "CreateQueue is idempotent")

    sent = sqs.send_message(QueueUrl=url, MessageBody='{"detail-type":"x"}')
    check(sent["MD5OfMessageBody"] == hashlib.md5(b'{"detail-type":"x"}').hexdigest(), "MD5", sent)

    got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=0,
                              MessageSystemAttributeNames=["All"])
    check(len(got.get("Messages", [])) == 1, "one message", got)
    m = got["Messages"][0]
    check(m["MessageId"] == sent["MessageId"] and m["Body"] == '{"detail-type":"x"}', "message", m)
    check(m["Attributes"]["ApproximateReceiveCount"] == "1", "first receive", m)
    check(abs(int(m["Attributes"]["SentTimestamp"]) / 1000 - time.time()) < 60, "SentTimestamp", m)

    # Hidden for the visibility timeout, then back (the long poll wakes for it).
    hidden = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=0)
    check("Messages" not in hidden, "hidden while in flight", hidden)
    again = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20, AttributeNames=["All"])
    check(len(again.get("Messages", [])) == 1, "back after the visibility timeout", again)
    m2 = again["Messages"][0]
    check(m2["Attributes"]["ApproximateReceiveCount"] == "2", "second receive", m2)
    check(m2["ReceiptHandle"] != m["ReceiptHandle"], "a new receipt handle per receive")
    sqs.delete_message(QueueUrl=url, ReceiptHandle=m2["ReceiptHandle"])
    # A stale handle of a deleted message still deletes (nothing).
    sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])

    # An empty long poll lasts its wait (1 s emulated, 0.1 s real), no less.
    start = time.monotonic()
    empty = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1)
    out["emptyPollSeconds"] = time.monotonic() - start
    check("Messages" not in empty, "deleted for good", empty)
    check(out["emptyPollSeconds"] >= 0.09, "the poll waited", out)

    # A long poll wakes when a message is sent, long before its 20 s (2 s real) are over.
    result = {}

    def receive():
        t0 = time.monotonic()
        result["got"] = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20)
        result["seconds"] = time.monotonic() - t0

    waiter = threading.Thread(target=receive)
    waiter.start()
    time.sleep(0.3)
    sqs.send_message(QueueUrl=url, MessageBody="wake")
    waiter.join(10)
    check(len(result["got"].get("Messages", [])) == 1, "the long poll got the message", result)
    out["wakeSeconds"] = result["seconds"]
    check(result["seconds"] < 1.5, "woken by the send, not the deadline", result)

    for bad, code in [
        (lambda: sqs.get_queue_url(QueueName="missing"), "AWS.SimpleQueueService.NonExistentQueue"),
        (lambda: sqs.delete_message(QueueUrl=url, ReceiptHandle="garbage"), "ReceiptHandleIsInvalid"),
        (lambda: sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=11), "InvalidParameterValue"),
    ]:
        try:
            bad()
            raise Failure("expected " + code)
        except ClientError as e:
            check(e.response["Error"]["Code"] == code, "error code", e.response["Error"])
    out["calls"].append("boto3")


def awscli_flow(endpoint, out):
    def aws(*args):
        argv = ["aws", "--endpoint-url", endpoint, "--region", "us-east-1", "--output", "json",
                "sqs", *args]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise Failure("%s exited %d: %s" % (" ".join(args), done.returncode, done.stderr))
        return json.loads(done.stdout) if done.stdout.strip() else {}

    url = aws("create-queue", "--queue-name", "cli-q")["QueueUrl"]
    aws("send-message", "--queue-url", url, "--message-body", "hello")
    got = aws("receive-message", "--queue-url", url, "--wait-time-seconds", "20",
              "--attribute-names", "All")
    check(len(got.get("Messages", [])) == 1 and got["Messages"][0]["Body"] == "hello", "cli", got)
    aws("delete-message", "--queue-url", url, "--receipt-handle", got["Messages"][0]["ReceiptHandle"])
    empty = aws("receive-message", "--queue-url", url, "--wait-time-seconds", "1")
    check("Messages" not in empty, "cli: deleted", empty)
    out["calls"].append("awscli")


def query(endpoint, params):
    """One Query-protocol call; (status, XML root)."""
    body = urllib.parse.urlencode({**params, "Version": "2012-11-05"})
    request = AWSRequest(method="POST", url=endpoint + "/", data=body,
                         headers={"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"})
    SigV4Auth(Credentials("nodewright", "nodewright"), "sqs", "us-east-1").add_auth(request)
    prepared = request.prepare()
    http = urllib.request.Request(prepared.url, data=prepared.body.encode()
                                  if isinstance(prepared.body, str) else prepared.body,
                                  headers=dict(prepared.headers), method="POST")
    try:
        with urllib.request.urlopen(http, timeout=30) as response:
            return response.status, ET.fromstring(response.read())
    except urllib.error.HTTPError as e:
        return e.code, ET.fromstring(e.read())


def query_flow(endpoint, out):
    status, root = query(endpoint, {"Action": "CreateQueue", "QueueName": "query-q",
                                    "Attribute.1.Name": "VisibilityTimeout", "Attribute.1.Value": "5"})
    check(status == 200 and root.tag == NS + "CreateQueueResponse", "CreateQueue", status, ET.tostring(root).decode())
    url = root.find(NS + "CreateQueueResult/" + NS + "QueueUrl").text
    status, root = query(endpoint, {"Action": "GetQueueUrl", "QueueName": "query-q"})
    check(root.find(NS + "GetQueueUrlResult/" + NS + "QueueUrl").text == url, "GetQueueUrl")
    status, root = query(endpoint, {"Action": "SendMessage", "QueueUrl": url, "MessageBody": "<q&a>"})
    result = root.find(NS + "SendMessageResult")
    check(result.find(NS + "MD5OfMessageBody").text == hashlib.md5(b"<q&a>").hexdigest(), "query MD5")
    status, root = query(endpoint, {"Action": "ReceiveMessage", "QueueUrl": url,
                                    "MaxNumberOfMessages": "10", "WaitTimeSeconds": "20",
                                    "AttributeName.1": "All"})
    messages = root.findall(NS + "ReceiveMessageResult/" + NS + "Message")
    check(len(messages) == 1 and messages[0].find(NS + "Body").text == "<q&a>", "query receive",
          ET.tostring(root).decode())
    names = {a.find(NS + "Name").text for a in messages[0].findall(NS + "Attribute")}
    check("SentTimestamp" in names, "query attributes", sorted(names))
    handle = messages[0].find(NS + "ReceiptHandle").text
    status, root = query(endpoint, {"Action": "DeleteMessage", "QueueUrl": url, "ReceiptHandle": handle})
    check(status == 200 and root.tag == NS + "DeleteMessageResponse", "DeleteMessage", status)
    status, root = query(endpoint, {"Action": "GetQueueUrl", "QueueName": "missing"})
    code = root.find(NS + "Error/" + NS + "Code")
    check(status == 400 and code is not None and code.text == "AWS.SimpleQueueService.NonExistentQueue",
          "query error", status, ET.tostring(root).decode())
    out["calls"].append("query")


def main():
    endpoint = sys.argv[1]
    out = {"calls": []}
    boto3_flow(endpoint, out)
    awscli_flow(endpoint, out)
    query_flow(endpoint, out)
    return out


if __name__ == "__main__":
    run_main(main)
