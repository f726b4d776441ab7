#pragma once

// CAPZ manifests shaped like the quickstart flavors clusterctl generates (default, private
// cluster, machine pool) and like the CAPZ controllers leave them (status with conditions and
// long-running operation states). Shared by the CAPZ tests.
namespace nodewright::api::capz::testing {

// The SSH key every CAPZ template carries, base64 encoded as sshPublicKey expects.
constexpr const char* kSshPublicKeyB64 =
    "c3NoLWVkMjU1MTkgQUFBQUMzTnphQzFsWkRJMU5URTVBQUFBSU9NcXFua1Z6cm0wU2RHNlVPb3FLTHNhYmdINUM5b2tXaT"
    "BkaDJsOUdLSmwgZGVtb0BjYXB6Cg==";

constexpr const char* kPublicCluster = R"(
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureCluster
metadata:
  name: capz-demo
  namespace: default
spec:
  identityRef:
    apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
    kind: AzureClusterIdentity
    name: cluster-identity
  location: westeurope
  resourceGroup: capz-demo-rg
  subscriptionID: 00000000-0000-0000-0000-000000000000
  additionalTags:
    environment: demo
  failureDomains:
    "1":
      controlPlane: true
  bastionSpec:
    azureBastion:
      sku: Standard
      enableTunneling: true
  networkSpec:
    vnet:
      name: capz-demo-vnet
      cidrBlocks:
      - 10.0.0.0/8
      tags:
        owner: platform
      peerings:
      - resourceGroup: hub-rg
        remoteVnetName: hub-vnet
        forwardPeeringProperties:
          allowForwardedTraffic: true
          allowVirtualNetworkAccess: true
        reversePeeringProperties:
          allowGatewayTransit: true
    subnets:
    - name: control-plane-subnet
      role: control-plane
      cidrBlocks:
      - 10.0.0.0/16
      securityGroup:
        name: control-plane-nsg
        securityRules:
        - name: allow_ssh
          description: Allow SSH
          direction: Inbound
          priority: 2200
          protocol: Tcp
          destination: '*'
          destinationPorts: "22"
          source: '*'
          sourcePorts: '*'
          action: Allow
        - name: allow_apiserver
          description: Allow K8s API Server
          direction: Inbound
          priority: 2201
          protocol: Tcp
          destination: '*'
          destinationPorts: "6443"
          source: '*'
          sourcePorts: '*'
        - name: deny_outbound_smtp
          description: Deny SMTP to the internet
          direction: Outbound
          priority: 2200
          protocol: Tcp
          destination: Internet
          destinationPorts: "25"
          source: VirtualNetwork
          sourcePorts: '*'
          action: Deny
    - name: node-subnet
      role: node
      cidrBlocks:
      - 10.1.0.0/16
      securityGroup:
        name: node-nsg
        tags:
          tier: nodes
      routeTable:
        name: node-routetable
      natGateway:
        name: node-natgw
        ip:
          name: pip-node-natgw
      serviceEndpoints:
      - service: Microsoft.Storage
        locations:
        - westeurope
        - northeurope
      privateEndpoints:
      - name: storage-pe
        location: westeurope
        privateLinkServiceConnections:
        - name: storage-plsc
          privateLinkServiceID: /subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/storage/providers/Microsoft.Storage/storageAccounts/capzdemo
          groupIDs:
          - blob
          requestMessage: capz demo
        privateIPAddresses:
        - 10.1.255.10
    apiServerLB:
      type: Public
      name: capz-demo-public-lb
      sku: Standard
      idleTimeoutInMinutes: 4
      frontendIPs:
      - name: capz-demo-public-lb-frontEnd
        publicIP:
          name: pip-capz-demo-apiserver
          dnsName: capz-demo-7f3a.westeurope.cloudapp.azure.com
      backendPool:
        name: capz-demo-public-lb-backendPool
    nodeOutboundLB:
      frontendIPsCount: 2
      idleTimeoutInMinutes: 10
  cloudProviderConfigOverrides:
    rateLimits:
    - name: defaultRateLimit
      config:
        cloudProviderRateLimit: true
        cloudProviderRateLimitQPS: 1200
        cloudProviderRateLimitBucket: 5000
    backOffs:
      cloudProviderBackoff: true
      cloudProviderBackoffRetries: 1
)";

constexpr const char* kPrivateCluster = R"(
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureCluster
metadata:
  name: capz-private
  namespace: default
spec:
  identityRef:
    apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
    kind: AzureClusterIdentity
    name: cluster-identity
  location: eastus2
  networkSpec:
    privateDNSZoneName: capz-private.internal.example.com
    vnet:
      resourceGroup: shared-network-rg
      name: shared-vnet
      cidrBlocks:
      - 10.0.0.0/16
      - fd00:1::/48
    subnets:
    - name: private-cp-subnet
      role: control-plane
      cidrBlocks:
      - 10.0.0.0/24
    - name: private-node-subnet
      role: node
      cidrBlocks:
      - 10.0.2.0/24
      - fd00:1:0:2::/64
    apiServerLB:
      type: Internal
      frontendIPs:
      - name: capz-private-internal-lb-frontEnd
        privateIP: 10.0.0.100
    controlPlaneOutboundLB:
      frontendIPsCount: 1
)";

constexpr const char* kMachineTemplates = R"(
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureMachineTemplate
metadata:
  name: capz-demo-control-plane
  namespace: default
spec:
  template:
    spec:
      vmSize: Standard_D2s_v3
      image:
        marketplace:
          publisher: cncf-upstream
          offer: capi
          sku: ubuntu-2204-gen1
          version: latest
      osDisk:
        osType: Linux
        diskSizeGB: 128
      dataDisks:
      - nameSuffix: etcddisk
        diskSizeGB: 256
        lun: 0
        managedDisk:
          storageAccountType: Premium_LRS
      sshPublicKey: ""
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureMachineTemplate
metadata:
  name: capz-demo-md-0
  namespace: default
spec:
  template:
    metadata:
      labels:
        nodepool: md-0
    spec:
      vmSize: Standard_D4s_v3
      identity: SystemAssigned
      systemAssignedIdentityRole:
        definitionID: /subscriptions/00000000-0000-0000-0000-000000000000/providers/Microsoft.Authorization/roleDefinitions/b24988ac-6180-42a0-ab88-20f7382dd24c
        scope: /subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/capz-demo-rg
      image:
        computeGallery:
          gallery: ClusterAPI-f72ceb4f-5159-4c26-a0fe-2ea738f0d019
          name: capi-ubun2-2204
          version: 1.30.2
      osDisk:
        osType: Linux
        diskSizeGB: 128
        cachingType: ReadOnly
        diffDiskSettings:
          option: Local
          placement: ResourceDisk
      spotVMOptions:
        maxPrice: "0.05"
        evictionPolicy: Delete
      securityProfile:
        securityType: TrustedLaunch
        encryptionAtHost: true
        uefiSettings:
          secureBootEnabled: true
          vTpmEnabled: true
      diagnostics:
        boot:
          storageAccountType: UserManaged
          userManaged:
            storageAccountURI: https://capzdemodiag.blob.core.windows.net/
      vmExtensions:
      - name: CustomScript
        publisher: Microsoft.Azure.Extensions
        version: "2.1"
        settings:
          commandToExecute: echo hello
      sshPublicKey: c3NoLWVkMjU1MTkgQUFBQUMzTnphQzFsWkRJMU5URTVBQUFBSU9NcXFua1Z6cm0wU2RHNlVPb3FLTHNhYmdINUM5b2tXaTBkaDJsOUdLSmwgZGVtb0BjYXB6Cg==
)";

constexpr const char* kMachinePool = R"(
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureMachinePool
metadata:
  name: capz-demo-mp-0
  namespace: default
spec:
  location: westeurope
  orchestrationMode: Flexible
  identity: UserAssigned
  userAssignedIdentities:
  - providerID: azure:///subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/capz-demo-rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/capz-demo-pool
  additionalTags:
    pool: mp-0
  strategy:
    type: RollingUpdate
    rollingUpdate:
      deletePolicy: Oldest
      maxSurge: 25%
      maxUnavailable: 1
  template:
    vmSize: Standard_D2s_v3
    osDisk:
      osType: Linux
      diskSizeGB: 30
      managedDisk:
        storageAccountType: Premium_LRS
    dataDisks:
    - nameSuffix: containerd
      diskSizeGB: 64
    sshPublicKey: c3NoLWVkMjU1MTkgQUFBQUMzTnphQzFsWkRJMU5URTVBQUFBSU9NcXFua1Z6cm0wU2RHNlVPb3FLTHNhYmdINUM5b2tXaTBkaDJsOUdLSmwgZGVtb0BjYXB6Cg==
    terminateNotificationTimeout: 10
    spotVMOptions:
      maxPrice: -1
    networkInterfaces:
    - subnetName: node-subnet
      privateIPConfigs: 2
      acceleratedNetworking: true
status:
  ready: true
  replicas: 2
  version: v1.30.2
  provisioningState: Succeeded
  infrastructureMachineKind: AzureMachinePoolMachine
  instances:
  - instanceID: "0"
    instanceName: capz-demo-mp-0_0
    providerID: azure:///subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/capz-demo-rg/providers/Microsoft.Compute/virtualMachines/capz-demo-mp-0_0
    provisioningState: Succeeded
    version: v1.30.2
    latestModelApplied: true
  conditions:
  - type: Ready
    status: "True"
    lastTransitionTime: "2024-05-14T09:40:01Z"
  - type: ScaleSetRunning
    status: "True"
    lastTransitionTime: "2024-05-14T09:38:12Z"
  - type: ScaleSetModelUpdated
    status: "False"
    severity: Info
    reason: Updating
    lastTransitionTime: "2024-05-14T09:45:30Z"
  longRunningOperationStates:
  - type: PATCH
    serviceName: scalesets
    resourceGroup: capz-demo-rg
    name: capz-demo-mp-0
    data: eyJ0eXBlIjoiUEFUQ0giLCJ0b2tlbiI6InZtc3MtcGF0Y2gifQ
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureMachinePoolMachine
metadata:
  name: capz-demo-mp-0-0
  namespace: default
  labels:
    azuremachinepool.infrastructure.cluster.x-k8s.io/machine-pool: capz-demo-mp-0
    cluster.x-k8s.io/cluster-name: capz-demo
spec:
  providerID: azure:///subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/capz-demo-rg/providers/Microsoft.Compute/virtualMachines/capz-demo-mp-0_0
  instanceID: "0"
status:
  nodeRef:
    apiVersion: v1
    kind: Node
    name: capz-demo-mp-0000000
  version: v1.30.2
  provisioningState: Deleting
  instanceName: capz-demo-mp-0_0
  latestModelApplied: true
  ready: true
  conditions:
  - type: Ready
    status: "False"
    severity: Info
    reason: Deleting
    lastTransitionTime: "2024-05-14T10:02:11Z"
  longRunningOperationStates:
  - type: DELETE
    serviceName: scalesetvm
    resourceGroup: capz-demo-rg
    name: capz-demo-mp-0_0
    data: eyJ0eXBlIjoiREVMRVRFIn0
)";

// An AzureMachine mid-creation: the NIC is done, the VM PUT is still running.
constexpr const char* kCreatingMachine = R"(
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureMachine
metadata:
  name: capz-demo-md-0-x2kqp
  namespace: default
  labels:
    cluster.x-k8s.io/cluster-name: capz-demo
  ownerReferences:
  - apiVersion: cluster.x-k8s.io/v1beta1
    kind: Machine
    name: capz-demo-md-0-7d9c5-x2kqp
    uid: 3c0f2d4e-8a8b-4b77-9d43-0f6f0c1e2a11
    controller: true
spec:
  vmSize: Standard_D4s_v3
  failureDomain: "1"
  identity: UserAssigned
  userAssignedIdentities:
  - providerID: azure:///subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/capz-demo-rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/capz-demo-id
  image:
    id: /subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/images/providers/Microsoft.Compute/images/capi-ubuntu-2204
  osDisk:
    osType: Linux
    diskSizeGB: 128
    cachingType: ReadWrite
    managedDisk:
      storageAccountType: Premium_LRS
      diskEncryptionSet:
        id: /subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/keys/providers/Microsoft.Compute/diskEncryptionSets/capz-des
  dataDisks:
  - nameSuffix: etcddisk
    diskSizeGB: 256
    lun: 1
    cachingType: ReadWrite
  - nameSuffix: containerd
    diskSizeGB: 128
    managedDisk:
      storageAccountType: UltraSSD_LRS
  additionalCapabilities:
    ultraSSDEnabled: true
  sshPublicKey: c3NoLWVkMjU1MTkgQUFBQUMzTnphQzFsWkRJMU5URTVBQUFBSU9NcXFua1Z6cm0wU2RHNlVPb3FLTHNhYmdINUM5b2tXaTBkaDJsOUdLSmwgZGVtb0BjYXB6Cg==
  networkInterfaces:
  - subnetName: node-subnet
    privateIPConfigs: 1
    acceleratedNetworking: true
  - subnetName: storage-subnet
    privateIPConfigs: 2
  dnsServers:
  - 10.1.0.4
  additionalTags:
    team: platform
status:
  ready: false
  vmState: Creating
  addresses:
  - type: InternalIP
    address: 10.1.0.5
  conditions:
  - type: Ready
    status: "False"
    severity: Info
    reason: Creating
    message: virtual machine is being created
    lastTransitionTime: "2024-05-14T09:21:07Z"
  - type: NetworkInterfacesReady
    status: "True"
    lastTransitionTime: "2024-05-14T09:20:41Z"
  - type: VMRunning
    status: "False"
    severity: Info
    reason: Creating
    lastTransitionTime: "2024-05-14T09:21:07Z"
  longRunningOperationStates:
  - type: PUT
    serviceName: virtualmachine
    resourceGroup: capz-demo-rg
    name: capz-demo-md-0-x2kqp
    data: eyJtZXRob2QiOiJQVVQiLCJwb2xsaW5nVVJMIjoiaHR0cHM6Ly9tYW5hZ2VtZW50LmF6dXJlLmNvbS8uLi4ifQ
  - type: PUT
    serviceName: roleassignments
    resourceGroup: capz-demo-rg
    name: capz-demo-md-0-x2kqp
)";

}  // namespace nodewright::api::capz::testing
