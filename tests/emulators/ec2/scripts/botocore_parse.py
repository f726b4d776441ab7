"""Parses saved response bodies with botocore's own parser and the operation's output shape,
offline, as a real client would see them.

argv: SERVICE:OPERATION:STATUS:FILE ...  (one per body; a label may follow OPERATION as
OPERATION#label to parse the same operation more than once)
stdout: {"OPERATION[#label]": {"parsed": {...}, "dropped": [paths]}}

botocore silently ignores XML elements its shape does not name, so for EC2 bodies every
element is also walked against the shape; "dropped" lists those botocore would lose.
"""

import json
import sys
import xml.etree.ElementTree as ET

import botocore.session
from botocore.parsers import create_parser


def local(tag):
    return tag.split("}")[-1]


def dropped(elem, shape, path):
    out = []
    if shape.type_name == "structure":
        names = {m.serialization.get("name", n): m for n, m in shape.members.items()}
        for child in elem:
            name = local(child.tag)
            if path == "" and name == "requestId":
                continue
            member = names.get(name)
            if member is None:
                out.append(path + "/" + name)
            else:
                out += dropped(child, member, path + "/" + name)
    elif shape.type_name == "list":
        want = shape.member.serialization.get("name", "member")
        for child in elem:
            name = local(child.tag)
            if name != want:
                out.append(path + "/" + name)
            else:
                out += dropped(child, shape.member, path + "/" + name)
    return out


def main():
    session = botocore.session.get_session()
    result = {}
    for arg in sys.argv[1:]:
        service, op, status, path = arg.split(":", 3)
        operation_name = op.split("#")[0]
        model = session.get_service_model(service)
        operation = model.operation_model(operation_name)
        with open(path, "rb") as f:
            body = f.read()
        parser = create_parser(model.metadata["protocol"])
        shape = operation.output_shape
        parsed = parser.parse({"body": body, "headers": {}, "status_code": int(status)}, shape)
        parsed.pop("ResponseMetadata", None)
        entry = {"parsed": parsed}
        # Operations without output (CreateTags) answer <return>true</return>, which no shape
        # names; there is nothing to drop.
        if model.metadata["protocol"] == "ec2" and int(status) == 200 and shape is not None:
            entry["dropped"] = dropped(ET.fromstring(body), operation.output_shape, "")
        result[op] = entry
    print(json.dumps(result, default=str))


if __name__ == "__main__":
    main()
