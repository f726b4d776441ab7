// The Azure SDK for JavaScript as a real client of the ARM emulator: `nodewright emulate azure`
// runs as its own process over HTTPS with its generated CA, and sdk_steps.mjs drives it with
// @azure/arm-resources, @azure/arm-network and @azure/arm-compute. Node reads extra CAs only at
// start-up, so the SDK steps run in a child process that trusts the emulator's CA.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';

const binary = process.env.NW_BINARY;
assert.ok(binary, 'NW_BINARY must name the nodewright binary');
const here = path.dirname(fileURLToPath(import.meta.url));

function startEmulator(caFile) {
  // Emulated time runs 50 times faster: a VM's ~45 s create takes about a second.
  const child = spawn(binary, ['emulate', 'azure', '--listen', '127.0.0.1:0', '--time-scale', '50',
    '--ca-file', caFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  const ready = new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const found = out.match(/listening on (https:\/\/\S+)/);
      if (found) resolve(found[1]);
    });
    child.on('exit', (code) => reject(new Error(`emulator exited with ${code}`)));
  });
  return { child, ready };
}

function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGINT');
  });
}

function runSteps(endpoint, caFile) {
  return new Promise((resolve) => {
    const steps = spawn(process.execPath, [path.join(here, 'sdk_steps.mjs')], {
      stdio: 'inherit',
      env: { ...process.env, NODE_EXTRA_CA_CERTS: caFile, ARM_ENDPOINT: endpoint },
    });
    steps.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'nw-arm-sdk-'));
const caFile = path.join(dir, 'ca.crt');
const emulator = startEmulator(caFile);
let code = 1;
try {
  const endpoint = await emulator.ready;
  code = await runSteps(endpoint, caFile);
} finally {
  await stop(emulator.child);
  rmSync(dir, { recursive: true, force: true });
}
process.exit(code);
