"""The official Kubernetes Python client (Debian's python3-kubernetes) against the embedded API
server, written as a user of the client writes it: typed models without apiVersion or kind,
watches, pagination, patches, the dynamic client, and validation errors.

Run by ctest with NW_BINARY naming the nodewright binary. Each test starts its own
`nodewright apiserver` on a free loopback port with a fresh data directory and stops it.
"""

import json
import os
import queue
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import unittest

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException
from kubernetes.dynamic import DynamicClient

DEADLINE_SECONDS = 30


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ApiServer:
    """A `nodewright apiserver` process with its own data directory."""

    def __init__(self):
        binary = os.environ.get("NW_BINARY")
        if not binary:
            raise RuntimeError("NW_BINARY must name the nodewright binary")
        self.data_dir = tempfile.mkdtemp(prefix="nw-python-")
        port = free_port()
        self.process = subprocess.Popen(
            [binary, "apiserver", "--data-dir", self.data_dir, "--listen", f"127.0.0.1:{port}"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        deadline = time.monotonic() + DEADLINE_SECONDS
        for line in self.process.stdout:
            if "listening on https://" in line:
                break
            if time.monotonic() > deadline:
                break
        else:
            self.stop()
            raise RuntimeError("the API server exited before it listened")
        # Drain the rest of its output so that the process never blocks on a full pipe.
        threading.Thread(target=lambda: [None for _ in self.process.stdout], daemon=True).start()
        self.kubeconfig = os.path.join(self.data_dir, "kubeconfig")

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=DEADLINE_SECONDS)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.data_dir, ignore_errors=True)


class PythonClientTest(unittest.TestCase):
    def setUp(self):
        self.server = ApiServer()
        self.addCleanup(self.server.stop)
        self.api_client = config.new_client_from_config(config_file=self.server.kubeconfig)
        self.addCleanup(self.api_client.close)
        self.core = client.CoreV1Api(self.api_client)

    def create_namespace(self, name):
        # No apiVersion, no kind: the models leave them unset and the server takes the endpoint's.
        created = self.core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=name)))
        self.assertEqual(created.metadata.name, name)
        self.assertEqual(created.kind, "Namespace")
        self.assertEqual(created.api_version, "v1")
        return created

    def test_typed_models_without_kind_create_get_list_and_patch(self):
        self.create_namespace("team-a")
        cm = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="settings", labels={"app": "web"}),
                                data={"color": "blue"})
        created = self.core.create_namespaced_config_map("team-a", cm)
        self.assertEqual(created.kind, "ConfigMap")
        self.assertEqual(created.metadata.namespace, "team-a")

        got = self.core.read_namespaced_config_map("settings", "team-a")
        self.assertEqual(got.data, {"color": "blue"})
        self.assertEqual(got.metadata.uid, created.metadata.uid)

        listed = self.core.list_namespaced_config_map("team-a", label_selector="app=web")
        self.assertEqual([item.metadata.name for item in listed.items], ["settings"])

        # A dict body is sent as a strategic merge patch, a list as a JSON patch.
        patched = self.core.patch_namespaced_config_map("settings", "team-a",
                                                        {"data": {"size": "large"}})
        self.assertEqual(patched.data, {"color": "blue", "size": "large"})
        patched = self.core.patch_namespaced_config_map(
            "settings", "team-a", [{"op": "replace", "path": "/data/color", "value": "red"}])
        self.assertEqual(patched.data, {"color": "red", "size": "large"})

        # A full update of the object read back, again without the user setting the kind.
        got = self.core.read_namespaced_config_map("settings", "team-a")
        got.kind = None
        got.api_version = None
        got.data["shape"] = "round"
        replaced = self.core.replace_namespaced_config_map("settings", "team-a", got)
        self.assertEqual(replaced.data["shape"], "round")

    def test_body_naming_another_kind_is_refused_as_kube_does(self):
        with self.assertRaises(ApiException) as caught:
            self.core.create_namespace({"apiVersion": "v1", "kind": "Pod",
                                        "metadata": {"name": "wrong"}})
        self.assertEqual(caught.exception.status, 400)
        status = json.loads(caught.exception.body)
        self.assertEqual(status["reason"], "BadRequest")
        self.assertEqual(status["message"],
                         'Pod in version "v1" cannot be handled as a Namespace: converting '
                         "(v1.Pod) to (core.Namespace): unknown conversion")
        # A custom resource must name its kind (unstructured decoding keeps only the body's).
        with self.assertRaises(ApiException) as caught:
            client.CustomObjectsApi(self.api_client).create_cluster_custom_object(
                "karpenter.sh", "v1", "nodepools", {"metadata": {"name": "nokind"}})
        self.assertEqual(caught.exception.status, 400)
        self.assertTrue(json.loads(caught.exception.body)["message"].startswith(
            'NodePool in version "v1" cannot be handled as a NodePool: '
            "Object 'Kind' is missing in '"))

    def test_watch_stream_sees_added_modified_and_deleted(self):
        self.create_namespace("watched")
        start = self.core.list_namespaced_config_map("watched").metadata.resource_version
        events = queue.Queue()
        w = watch.Watch()

        def run():
            try:
                for event in w.stream(self.core.list_namespaced_config_map, "watched",
                                      resource_version=start, timeout_seconds=DEADLINE_SECONDS):
                    events.put((event["type"], event["object"].metadata.name,
                                dict(event["object"].data or {})))
            except Exception as error:  # surfaced to the test thread below
                events.put(("EXCEPTION", repr(error), {}))
            events.put(("END", "", {}))

        watcher = threading.Thread(target=run, daemon=True)
        watcher.start()
        self.addCleanup(w.stop)

        cm = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="live"), data={"n": "1"})
        self.core.create_namespaced_config_map("watched", cm)
        self.core.patch_namespaced_config_map("live", "watched", {"data": {"n": "2"}})
        self.core.delete_namespaced_config_map("live", "watched")

        seen = []
        deadline = time.monotonic() + DEADLINE_SECONDS
        while len(seen) < 3:
            remaining = deadline - time.monotonic()
            self.assertGreater(remaining, 0, f"events so far: {seen}")
            kind, name, data = events.get(timeout=remaining)
            self.assertNotIn(kind, ("EXCEPTION", "END"), f"watch ended early: {name}; seen {seen}")
            seen.append((kind, name, data))
        w.stop()
        self.assertEqual(seen, [("ADDED", "live", {"n": "1"}),
                                ("MODIFIED", "live", {"n": "2"}),
                                ("DELETED", "live", {"n": "2"})])

    def test_pagination_with_limit_and_continue(self):
        self.create_namespace("paged")
        names = [f"cm-{i:02d}" for i in range(7)]
        for name in names:
            self.core.create_namespaced_config_map(
                "paged", client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name)))
        pages = []
        token = None
        while True:
            kwargs = {"limit": 3}
            if token:
                kwargs["_continue"] = token
            page = self.core.list_namespaced_config_map("paged", **kwargs)
            pages.append([item.metadata.name for item in page.items])
            token = page.metadata._continue
            if not token:
                break
            self.assertLess(len(pages), 10, "pagination does not end")
        self.assertEqual(pages, [names[0:3], names[3:6], names[6:7]])

    def test_dynamic_client_discovers_and_gets_a_nodepool(self):
        dyn = DynamicClient(self.api_client)
        pools = dyn.resources.get(api_version="karpenter.sh/v1", kind="NodePool")
        self.assertFalse(pools.namespaced)
        self.assertEqual(pools.name, "nodepools")
        body = {
            "apiVersion": "karpenter.sh/v1",
            "kind": "NodePool",
            "metadata": {"name": "general"},
            "spec": {"template": {"spec": {
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass",
                                 "name": "default"},
                "requirements": [{"key": "karpenter.sh/capacity-type", "operator": "In",
                                  "values": ["spot"]}]}}},
        }
        pools.create(body=body)
        got = pools.get(name="general")
        self.assertEqual(got.kind, "NodePool")
        self.assertEqual(got.spec.template.spec.nodeClassRef.name, "default")

        # Custom resources take JSON merge patches.
        patched = pools.patch(name="general", body={"metadata": {"labels": {"tier": "gold"}}},
                              content_type="application/merge-patch+json")
        self.assertEqual(patched.metadata.labels["tier"], "gold")
        listed = pools.get()
        self.assertEqual([item.metadata.name for item in listed.items], ["general"])

    def test_invalid_object_is_422_with_its_field_path(self):
        self.create_namespace("strict")
        bad = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="Not_A_Name"))
        with self.assertRaises(ApiException) as caught:
            self.core.create_namespaced_config_map("strict", bad)
        self.assertEqual(caught.exception.status, 422)
        status = json.loads(caught.exception.body)
        self.assertEqual(status["reason"], "Invalid")
        fields = [cause["field"] for cause in status["details"]["causes"]]
        self.assertIn("metadata.name", fields)

    def test_query_parameter_errors_are_kubes(self):
        self.create_namespace("params")
        with self.assertRaises(ApiException) as caught:
            self.core.create_namespaced_config_map(
                "params", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="x")),
                field_manager="m" * 129)
        self.assertEqual(caught.exception.status, 422)
        self.assertEqual(json.loads(caught.exception.body)["message"],
                         'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: '
                         "may not be more than 128 bytes")
        with self.assertRaises(ApiException) as caught:
            self.core.list_namespaced_config_map("params", resource_version_match="Exact")
        self.assertEqual(caught.exception.status, 422)
        self.assertIn("resourceVersionMatch is forbidden unless resourceVersion is provided",
                      json.loads(caught.exception.body)["message"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
