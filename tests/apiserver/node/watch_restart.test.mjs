// @kubernetes/client-node as a real client of the embedded API server: it lists and watches
// NodeClaims and must see every event, in order, across a kill -9 and restart of the server
// (resuming from its last resourceVersion, or relisting after 410 Gone).
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';

const binary = process.env.NW_BINARY;
assert.ok(binary, 'NW_BINARY must name the nodewright binary');
const group = 'karpenter.sh';
const version = 'v1';
const plural = 'nodeclaims';
const watchPath = `/apis/${group}/${version}/${plural}`;

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

function startServer(dataDir, port) {
  const child = spawn(binary, ['apiserver', '--data-dir', dataDir, '--listen', `127.0.0.1:${port}`],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  const ready = new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('listening on https://')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`apiserver exited with ${code}`)));
  });
  return { child, ready };
}

function stopServer(server, signal) {
  return new Promise((resolve) => {
    if (server.child.exitCode !== null) return resolve();
    server.child.once('exit', () => resolve());
    server.child.kill(signal);
  });
}

function nodeClaim(name) {
  return {
    apiVersion: `${group}/${version}`,
    kind: 'NodeClaim',
    metadata: { name, labels: { 'karpenter.sh/nodepool': 'default' } },
    spec: {
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }],
    },
  };
}

// The watcher: list, then watch from the list's resourceVersion; on a dropped connection
// watch again from the last resourceVersion seen; on 410 Gone relist.
class Watcher extends EventEmitter {
  constructor(kc, api) {
    super();
    this.kc = kc;
    this.api = api;
    this.events = [];   // { type, name, rv } in arrival order
    this.state = new Map();  // name -> rv
    this.relists = 0;
    this.lastRv = undefined;
    this.stopped = false;
    this.controller = undefined;
  }

  async run() {
    const watch = new k8s.Watch(this.kc);
    while (!this.stopped) {
      try {
        if (this.lastRv === undefined) {
          const list = await this.api.listClusterCustomObject({ group, version, plural });
          this.state = new Map(list.items.map((o) => [o.metadata.name, o.metadata.resourceVersion]));
          this.lastRv = list.metadata.resourceVersion;
          this.relists++;
          this.emit('change');
        }
        await new Promise((resolve) => {
          watch.watch(watchPath, { resourceVersion: this.lastRv, allowWatchBookmarks: true },
            (type, obj) => this.onEvent(type, obj),
            () => resolve())
            .then((c) => { this.controller = c; })
            .catch(() => resolve());
        });
      } catch (e) {
        // The server is down (restarting); try again shortly.
      }
      if (!this.stopped) await new Promise((r) => setTimeout(r, 100));
    }
  }

  onEvent(type, obj) {
    if (type === 'ERROR') {
      assert.equal(obj.code, 410, `unexpected watch error ${JSON.stringify(obj)}`);
      this.lastRv = undefined;
      return;
    }
    const rv = obj.metadata.resourceVersion;
    this.lastRv = rv;
    if (type === 'BOOKMARK') return;
    this.events.push({ type, name: obj.metadata.name, rv });
    if (type === 'DELETED') this.state.delete(obj.metadata.name);
    else this.state.set(obj.metadata.name, rv);
    this.emit('change');
  }

  waitFor(predicate, what, timeoutMs = 60000) {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (predicate()) {
          clearTimeout(timer);
          this.off('change', check);
          resolve();
        }
      };
      const timer = setTimeout(() => {
        this.off('change', check);
        reject(new Error(`timed out waiting for ${what}`));
      }, timeoutMs);
      this.on('change', check);
      check();
    });
  }

  stop() {
    this.stopped = true;
    if (this.controller) this.controller.abort();
  }
}

async function writes(api, acked, names, { updates = [], deletes = [] }) {
  for (const name of names) {
    const o = await api.createClusterCustomObject({ group, version, plural, body: nodeClaim(name) });
    acked.push({ type: 'ADDED', name, rv: o.metadata.resourceVersion });
  }
  for (const name of updates) {
    const o = await api.getClusterCustomObject({ group, version, plural, name });
    o.metadata.labels.updated = String(acked.length);
    const u = await api.replaceClusterCustomObject({ group, version, plural, name, body: o });
    acked.push({ type: 'MODIFIED', name, rv: u.metadata.resourceVersion });
  }
  for (const name of deletes) {
    await api.deleteClusterCustomObject({ group, version, plural, name });
    acked.push({ type: 'DELETED', name });
  }
}

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nw-node-client-'));
  const port = await freePort();
  let server = startServer(dataDir, port);
  let watcher;
  try {
    await server.ready;
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(path.join(dataDir, 'kubeconfig'));
    const api = kc.makeApiClient(k8s.CustomObjectsApi);
    watcher = new Watcher(kc, api);
    const running = watcher.run();
    await watcher.waitFor(() => watcher.relists === 1, 'the first list');

    const acked = [];
    const first = Array.from({ length: 20 }, (_, i) => `before-${i}`);
    await writes(api, acked, first, { updates: first.slice(0, 5), deletes: first.slice(15) });
    await watcher.waitFor(() => watcher.events.length >= acked.length, 'events before restart');

    await stopServer(server, 'SIGKILL');
    server = startServer(dataDir, port);
    await server.ready;

    const second = Array.from({ length: 10 }, (_, i) => `after-${i}`);
    await writes(api, acked, second, { updates: [first[0], second[0]], deletes: [first[1]] });
    const truth = await api.listClusterCustomObject({ group, version, plural });
    const expected = new Map(truth.items.map((o) => [o.metadata.name, o.metadata.resourceVersion]));
    await watcher.waitFor(() => watcher.state.size === expected.size &&
      [...expected].every(([n, rv]) => watcher.state.get(n) === rv), 'the final state');

    // Every event arrived exactly once and in order: resourceVersions only grow, and (without a
    // relist) the events are exactly the acknowledged writes.
    for (let i = 1; i < watcher.events.length; i++) {
      if (watcher.events[i].rv !== undefined && watcher.events[i - 1].rv !== undefined) {
        assert.ok(BigInt(watcher.events[i].rv) > BigInt(watcher.events[i - 1].rv),
          `events out of order at ${i}: ${JSON.stringify(watcher.events.slice(i - 1, i + 1))}`);
      }
    }
    if (watcher.relists === 1) {
      assert.deepEqual(watcher.events.map((e) => `${e.type} ${e.name}`),
        acked.map((e) => `${e.type} ${e.name}`));
      for (let i = 0; i < acked.length; i++) {
        if (acked[i].rv) assert.equal(watcher.events[i].rv, acked[i].rv);
      }
    }
    console.log(`ok: ${watcher.events.length} events in order across a restart ` +
      `(${watcher.relists - 1} relists)`);

    // A client that was away while others wrote and the server restarted: the history no longer
    // reaches its resourceVersion, so its watch gets 410 Gone, it relists, and it ends up with
    // the server's state.
    watcher.stop();
    const away = new Watcher(kc, api);
    away.lastRv = watcher.lastRv;
    away.state = new Map(watcher.state);
    await writes(api, [], ['late-0', 'late-1', 'late-2'], { deletes: [second[1]] });
    await stopServer(server, 'SIGKILL');
    server = startServer(dataDir, port);
    await server.ready;
    const later = await api.listClusterCustomObject({ group, version, plural });
    const wanted = new Map(later.items.map((o) => [o.metadata.name, o.metadata.resourceVersion]));
    const awayRunning = away.run();
    await away.waitFor(() => away.relists === 1 && away.state.size === wanted.size &&
      [...wanted].every(([n, rv]) => away.state.get(n) === rv), 'the relisted state');
    console.log('ok: a stale watch got 410 and the client relisted');
    away.stop();
    await Promise.race([awayRunning, new Promise((r) => setTimeout(r, 5000))]);
    await stopServer(server, 'SIGTERM');
    await Promise.race([running, new Promise((r) => setTimeout(r, 5000))]);
  } finally {
    if (watcher) watcher.stop();
    await stopServer(server, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
