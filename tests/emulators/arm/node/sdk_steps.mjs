// The SDK side of arm_sdk.test.mjs (run by it with NODE_EXTRA_CA_CERTS and ARM_ENDPOINT set):
// create and delete a resource group, vnet, subnet, NSG, public IP, NIC, VM and VMSS through
// the SDKs' long-running-operation pollers, serialize pollers mid-operation and resume them in
// new clients, and prove through /admin/stats that a resumed poller sent no second PUT.
import assert from 'node:assert/strict';
import { ResourceManagementClient } from '@azure/arm-resources';
import { NetworkManagementClient } from '@azure/arm-network';
import { ComputeManagementClient, restorePoller } from '@azure/arm-compute';

const endpoint = process.env.ARM_ENDPOINT;
assert.ok(endpoint, 'ARM_ENDPOINT must be set');
const tenant = '00000000-0000-0000-0000-000000000001';
const subscription = '11111111-2222-3333-4444-555555555555';
const location = 'eastus';
const rg = 'sdk-rg';
const poll = { updateIntervalInMs: 100 };

// A token from the emulator's Entra endpoint, handed to the SDKs as a static TokenCredential.
async function acquireToken() {
  const form = new URLSearchParams({
    grant_type: 'client_credentials', client_id: 'sdk-test', client_secret: 'sdk-secret',
    scope: 'https://management.azure.com/.default',
  });
  const response = await fetch(`${endpoint}/${tenant}/oauth2/v2.0/token`, { method: 'POST', body: form });
  assert.equal(response.status, 200, 'token endpoint');
  const body = await response.json();
  assert.equal(body.token_type, 'Bearer');
  return body.access_token;
}
const token = await acquireToken();
const credential = {
  getToken: async () => ({ token, expiresOnTimestamp: Date.now() + 3600 * 1000 }),
};
const options = { endpoint, credentialScopes: ['https://management.azure.com/.default'] };
const clients = () => ({
  resources: new ResourceManagementClient(credential, subscription, options),
  network: new NetworkManagementClient(credential, subscription, options),
  compute: new ComputeManagementClient(credential, subscription, options),
});
const { resources, network, compute } = clients();

async function putsOf(resourceId) {
  const response = await fetch(`${endpoint}/admin/stats`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(response.status, 200, 'admin stats');
  const stats = await response.json();
  return (stats.puts ?? {})[resourceId.toLowerCase()] ?? 0;
}

async function expectGone(get, what) {
  await assert.rejects(get, (e) => e.statusCode === 404, `${what} must be gone`);
}

function step(text) {
  console.log(`- ${text}`);
}

step('resource group');
const group = await resources.resourceGroups.createOrUpdate(rg, { location });
assert.equal(group.properties.provisioningState, 'Succeeded');

step('vnet, subnet, NSG, public IP and NIC with beginCreateOrUpdateAndWait');
const vnet = await network.virtualNetworks.beginCreateOrUpdateAndWait(rg, 'vnet',
  { location, addressSpace: { addressPrefixes: ['10.0.0.0/16'] } }, poll);
assert.equal(vnet.provisioningState, 'Succeeded');
const nsg = await network.networkSecurityGroups.beginCreateOrUpdateAndWait(rg, 'nsg', { location }, poll);
assert.equal(nsg.provisioningState, 'Succeeded');
const subnet = await network.subnets.beginCreateOrUpdateAndWait(rg, 'vnet', 'subnet',
  { addressPrefix: '10.0.1.0/24', networkSecurityGroup: { id: nsg.id } }, poll);
assert.equal(subnet.provisioningState, 'Succeeded');
const pip = await network.publicIPAddresses.beginCreateOrUpdateAndWait(rg, 'pip',
  { location, sku: { name: 'Standard' }, publicIPAllocationMethod: 'Static' }, poll);
assert.equal(pip.provisioningState, 'Succeeded');
const nic = await network.networkInterfaces.beginCreateOrUpdateAndWait(rg, 'nic', {
  location,
  ipConfigurations: [{ name: 'ipconfig1', subnet: { id: subnet.id }, publicIPAddress: { id: pip.id } }],
}, poll);
assert.equal(nic.provisioningState, 'Succeeded');

step('VM and VMSS with beginCreateOrUpdateAndWait');
const image = { publisher: 'Canonical', offer: '0001-com-ubuntu-server-jammy', sku: '22_04-lts-gen2', version: 'latest' };
const linux = {
  disablePasswordAuthentication: true,
  ssh: { publicKeys: [{ path: '/home/capi/.ssh/authorized_keys', keyData: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG9udHJ1c3RlZA capi' }] },
};
const vmParameters = (nicId, name) => ({
  location,
  hardwareProfile: { vmSize: 'Standard_D2s_v3' },
  storageProfile: { imageReference: image, osDisk: { createOption: 'FromImage', managedDisk: { storageAccountType: 'Premium_LRS' } } },
  osProfile: { computerName: name, adminUsername: 'capi', linuxConfiguration: linux },
  networkProfile: { networkInterfaces: [{ id: nicId, primary: true }] },
});
const vm = await compute.virtualMachines.beginCreateOrUpdateAndWait(rg, 'vm', vmParameters(nic.id, 'vm'), poll);
assert.equal(vm.provisioningState, 'Succeeded');
const vmss = await compute.virtualMachineScaleSets.beginCreateOrUpdateAndWait(rg, 'vmss', {
  location,
  sku: { name: 'Standard_D2s_v3', tier: 'Standard', capacity: 2 },
  upgradePolicy: { mode: 'Manual' },
  virtualMachineProfile: {
    osProfile: { computerNamePrefix: 'vmss', adminUsername: 'capi', linuxConfiguration: linux },
    storageProfile: { imageReference: image, osDisk: { createOption: 'FromImage' } },
    networkProfile: {
      networkInterfaceConfigurations: [{ name: 'nic', primary: true, ipConfigurations: [{ name: 'ip', subnet: { id: subnet.id } }] }],
    },
  },
}, poll);
assert.equal(vmss.provisioningState, 'Succeeded');
const instances = [];
for await (const instance of compute.virtualMachineScaleSetVMs.list(rg, 'vmss')) instances.push(instance);
assert.equal(instances.length, 2, 'the scale set runs sku.capacity instances');

step('a public IP poller serialized mid-operation and resumed with resumeFrom in a new client');
const pipPoller = await network.publicIPAddresses.beginCreateOrUpdate(rg, 'pip-resumed',
  { location, sku: { name: 'Standard' }, publicIPAllocationMethod: 'Static' }, poll);
assert.equal(pipPoller.isDone(), false, 'the public IP takes longer than its first answer');
const pipState = pipPoller.toString();
const resumedPip = await clients().network.publicIPAddresses.beginCreateOrUpdate(rg, 'pip-resumed',
  { location }, { ...poll, resumeFrom: pipState });
const pipResult = await resumedPip.pollUntilDone();
assert.equal(pipResult.provisioningState, 'Succeeded');
assert.equal(await putsOf(pipResult.id), 1, 'the resumed poller sent no second PUT');

step('a VM poller serialized mid-operation and restored with restorePoller (core-lro restoreFrom)');
const nic2 = await network.networkInterfaces.beginCreateOrUpdateAndWait(rg, 'nic-resumed',
  { location, ipConfigurations: [{ name: 'ipconfig1', subnet: { id: subnet.id } }] }, poll);
const vmPoller = compute.virtualMachines.createOrUpdate(rg, 'vm-resumed', vmParameters(nic2.id, 'vm-resumed'), poll);
await vmPoller.submitted();
assert.equal(vmPoller.isDone, false, 'a VM create is long-running');
const vmState = await vmPoller.serialize();
const fresh = clients().compute;
const restored = restorePoller(fresh, vmState, fresh.virtualMachines.createOrUpdate, poll);
const vmResumed = await restored.pollUntilDone();
assert.equal(vmResumed.provisioningState, 'Succeeded');
assert.equal(await putsOf(vmResumed.id), 1, 'the restored poller sent no second PUT');

step('beginDeleteAndWait in reverse order');
await compute.virtualMachineScaleSets.beginDeleteAndWait(rg, 'vmss', poll);
await expectGone(compute.virtualMachineScaleSets.get(rg, 'vmss'), 'vmss');
for (const name of ['vm', 'vm-resumed']) {
  await compute.virtualMachines.beginDeleteAndWait(rg, name, poll);
  await expectGone(compute.virtualMachines.get(rg, name), name);
}
for (const name of ['nic', 'nic-resumed']) {
  await network.networkInterfaces.beginDeleteAndWait(rg, name, poll);
  await expectGone(network.networkInterfaces.get(rg, name), name);
}
for (const name of ['pip', 'pip-resumed']) {
  await network.publicIPAddresses.beginDeleteAndWait(rg, name, poll);
  await expectGone(network.publicIPAddresses.get(rg, name), name);
}
await network.subnets.beginDeleteAndWait(rg, 'vnet', 'subnet', poll);
await expectGone(network.subnets.get(rg, 'vnet', 'subnet'), 'subnet');
await network.networkSecurityGroups.beginDeleteAndWait(rg, 'nsg', poll);
await expectGone(network.networkSecurityGroups.get(rg, 'nsg'), 'nsg');
await network.virtualNetworks.beginDeleteAndWait(rg, 'vnet', poll);
await expectGone(network.virtualNetworks.get(rg, 'vnet'), 'vnet');

step('deleting a resource group deletes what is inside');
await network.virtualNetworks.beginCreateOrUpdateAndWait(rg, 'vnet-2',
  { location, addressSpace: { addressPrefixes: ['10.1.0.0/16'] } }, poll);
await resources.resourceGroups.beginDeleteAndWait(rg, poll);
await expectGone(resources.resourceGroups.get(rg), 'resource group');
await expectGone(network.virtualNetworks.get(rg, 'vnet-2'), 'vnet in the deleted group');
console.log('arm sdk: all steps passed');
