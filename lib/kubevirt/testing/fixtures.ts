/**
 * Realistic objects for tests: a VM spec shaped like the ones the Deckhouse virtualization controller writes
 * (many fields set, so a schema that prunes or rejects any of them shows up), and VMI/KubeVirt/migration
 * specs and statuses.
 */
import type { Devices } from '../v1/devices.ts';
import type { KubeVirtConfiguration, KubeVirtSpec } from '../v1/kubevirt.ts';
import type { VirtualMachineInstanceMigrationSpec } from '../v1/migration.ts';
import type { VirtualMachineSpec } from '../v1/vm.ts';
import type { VirtualMachineStatus } from '../v1/vm-status.ts';
import type { VirtualMachineInstanceSpec } from '../v1/vmi-spec.ts';
import type { VirtualMachineInstanceStatus } from '../v1/vmi-status.ts';

function richDevices(): Devices {
  return {
    disks: [
      {
        name: 'vd-root',
        disk: { bus: 'scsi' },
        bootOrder: 1,
        serial: 'root-serial',
        cache: 'none',
        io: 'native',
        errorPolicy: 'report',
      },
      { name: 'cdrom', cdrom: { bus: 'sata', readonly: true, tray: 'closed' }, bootOrder: 2 },
      { name: 'cloudinit', disk: { bus: 'virtio' } },
      { name: 'lun', lun: { bus: 'scsi', reservation: true } },
    ],
    interfaces: [
      {
        name: 'default',
        bridge: {},
        model: 'virtio',
        macAddress: '02:00:00:00:00:01',
        ports: [{ port: 22 }],
      },
      { name: 'extra', masquerade: {}, dhcpOptions: { ntpServers: ['10.0.0.1'] } },
    ],
    inputs: [{ name: 'tablet', type: 'tablet', bus: 'usb' }],
    rng: {},
    tpm: { persistent: true },
    watchdog: { name: 'wd', i6300esb: { action: 'poweroff' } },
    autoattachPodInterface: false,
    autoattachSerialConsole: true,
    autoattachGraphicsDevice: true,
    autoattachMemBalloon: false,
    networkInterfaceMultiqueue: true,
    blockMultiQueue: true,
    hostDevices: [{ name: 'gpu0', claimName: 'claim', requestName: 'req' }],
  };
}

export function richVmiSpec(): VirtualMachineInstanceSpec {
  return {
    domain: {
      cpu: {
        cores: 2,
        sockets: 1,
        threads: 1,
        maxSockets: 4,
        model: 'Nehalem',
        features: [{ name: 'vmx', policy: 'require' }],
      },
      memory: { guest: '2Gi', maxGuest: '8Gi' },
      resources: {
        requests: { cpu: '500m', memory: '2Gi' },
        limits: { cpu: 2, memory: '2Gi' },
        overcommitGuestOverhead: false,
      },
      machine: { type: 'q35' },
      firmware: {
        uuid: '6d3a9d2e-1f5c-4b73-9a0e-0f3c2f6d8e11',
        serial: 'b2c9f1e0-8a4d-4c7e-9f21-3d5e6a7b8c9d',
        bootloader: { efi: { secureBoot: false, persistent: true } },
      },
      clock: { utc: {}, timer: { hpet: { present: false }, rtc: { present: true, tickPolicy: 'catchup' } } },
      features: {
        acpi: { enabled: true },
        smm: { enabled: true },
        hyperv: { relaxed: {}, spinlocks: { spinlocks: 8191 }, vendorid: { vendorid: 'deckhouse' } },
      },
      devices: richDevices(),
      ioThreadsPolicy: 'auto',
    },
    volumes: [
      { name: 'vd-root', persistentVolumeClaim: { claimName: 'vd-root-pvc', hotpluggable: false } },
      {
        name: 'cdrom',
        containerDisk: {
          image: 'registry.example/iso:v1',
          imagePullPolicy: 'IfNotPresent',
          hotpluggable: true,
        },
      },
      { name: 'cloudinit', cloudInitNoCloud: { userDataBase64: 'I2Nsb3VkLWNvbmZpZw==' } },
      { name: 'lun', dataVolume: { name: 'dv-lun', hotpluggable: true } },
      { name: 'scratch', emptyDisk: { capacity: '1Gi' } },
      { name: 'host', hostDisk: { path: '/var/disk.img', type: 'DiskOrCreate', capacity: '2Gi' } },
      { name: 'eph', ephemeral: { persistentVolumeClaim: { claimName: 'base' } } },
      { name: 'dump', memoryDump: { claimName: 'dump-pvc', hotpluggable: true } },
      { name: 'sysprep', sysprep: { secret: { name: 'unattend' } } },
    ],
    networks: [
      { name: 'default', pod: {} },
      { name: 'extra', multus: { networkName: 'ns/net', default: false } },
    ],
    nodeSelector: { 'kubernetes.io/arch': 'amd64' },
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: 'node-role', operator: 'In', values: ['worker'] }] },
          ],
        },
      },
    },
    tolerations: [
      { key: 'dedicated', operator: 'Equal', value: 'vm', effect: 'NoSchedule' },
      { operator: 'Exists' },
    ],
    evictionStrategy: 'LiveMigrate',
    terminationGracePeriodSeconds: 60,
    hostname: 'vm-host',
    priorityClassName: 'high',
    architecture: 'amd64',
    readinessProbe: { guestAgentPing: {}, initialDelaySeconds: 10 },
    resourceClaims: [{ name: 'claim', resourceClaimTemplateName: 'gpu-template' }],
  };
}

export function richVmSpec(): VirtualMachineSpec {
  return {
    runStrategy: 'Manual',
    template: {
      metadata: {
        labels: { 'vm.kubevirt.io/name': 'rich' },
        annotations: { 'kubevirt.io/allow-pod-bridge-network-live-migration': '' },
      },
      spec: richVmiSpec(),
    },
    dataVolumeTemplates: [
      {
        metadata: { name: 'dv-lun' },
        spec: { source: { blank: {} }, storage: { resources: { requests: { storage: '10Gi' } } } },
      },
    ],
    updateVolumesStrategy: 'Replacement',
  };
}

export function vmStatusRunning(): VirtualMachineStatus {
  return {
    printableStatus: 'Running',
    created: true,
    ready: true,
    conditions: [
      { type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-11-29T10:00:00Z' },
      { type: 'LiveMigratable', status: 'True', reason: 'Migratable' },
    ],
    stateChangeRequests: [
      { action: 'Stop', uid: '1b4c2e38-0000-4000-8000-000000000001' },
      { action: 'Start', data: { paused: 'true' } },
    ],
    volumeRequests: [
      {
        addVolumeOptions: {
          name: 'hot',
          disk: { name: 'hot', disk: { bus: 'scsi' }, serial: 'hot' },
          volumeSource: { persistentVolumeClaim: { claimName: 'hot-pvc', hotpluggable: true } },
        },
      },
      { removeVolumeOptions: { name: 'old', dryRun: ['All'] } },
    ],
    resourceClaimRequests: [
      {
        addResourceClaimOptions: {
          name: 'gpu1',
          hostDevice: { name: 'gpu1', claimName: 'gpu1', requestName: 'req' },
          resourceClaim: { name: 'gpu1', resourceClaimTemplateName: 'tpl', hotpluggable: true },
        },
      },
    ],
    startFailure: {
      consecutiveFailCount: 2,
      lastFailedVMIUID: 'abc',
      retryAfterTimestamp: '2026-11-29T10:05:00Z',
    },
    observedGeneration: 3,
    desiredGeneration: 3,
    runStrategy: 'Manual',
  };
}

export function vmiStatusRunning(): VirtualMachineInstanceStatus {
  return {
    phase: 'Running',
    phaseTransitionTimestamps: [
      { phase: 'Pending', phaseTransitionTimestamp: '2026-11-29T10:00:00Z' },
      { phase: 'Running', phaseTransitionTimestamp: '2026-11-29T10:00:09Z' },
    ],
    conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: null }],
    nodeName: 'node-a',
    interfaces: [
      {
        name: 'default',
        ipAddress: '10.66.0.12',
        ipAddresses: ['10.66.0.12'],
        mac: '02:00:00:00:00:01',
        infoSource: 'domain, guest-agent',
        queueCount: 1,
      },
    ],
    guestOSInfo: {
      id: 'ubuntu',
      name: 'Ubuntu',
      prettyName: 'Ubuntu 24.04 LTS',
      version: '24.04',
      kernelRelease: '6.8.0-45-generic',
    },
    volumeStatus: [
      {
        name: 'vd-root',
        target: 'sda',
        phase: 'Ready',
        persistentVolumeClaimInfo: {
          claimName: 'vd-root-pvc',
          capacity: { storage: '10Gi' },
          filesystemOverhead: '0.055',
        },
      },
      {
        name: 'hot',
        target: 'sdb',
        phase: 'Ready',
        hotplugVolume: { attachPodName: 'hp-volume-x', attachPodUID: 'u' },
      },
    ],
    launcherContainerImageVersion: 'registry.example/virt-launcher:v1.6.2',
    activePods: { 'c0ffee00-0000-4000-8000-000000000000': 'node-a' },
    qosClass: 'Burstable',
    migrationMethod: 'BlockMigration',
    migrationState: {
      migrationUid: 'm1',
      completed: true,
      sourceNode: 'node-b',
      targetNode: 'node-a',
      transferStatus: { iteration: 3 },
    },
    currentCPUTopology: { sockets: 1, cores: 2, threads: 1 },
    memory: { guestAtBoot: '2Gi', guestCurrent: '2Gi', guestRequested: '2Gi' },
    machine: { type: 'pc-q35-9.2' },
    runtimeUser: 107,
    VSOCKCID: 3,
    selinuxContext: 'none',
  } as VirtualMachineInstanceStatus;
}

export function kubevirtSpec(): KubeVirtSpec {
  return {
    imagePullPolicy: 'IfNotPresent',
    certificateRotateStrategy: { selfSigned: { ca: { duration: '48h' } } },
    configuration: {
      evictionStrategy: 'LiveMigrate',
      vmRolloutStrategy: 'LiveUpdate',
      developerConfiguration: { featureGates: ['HotplugVolumes', 'Snapshot'], useEmulation: true },
      smbios: { manufacturer: 'Flant', family: 'Deckhouse', product: 'DeckhouseVirtualizationPlatform' },
      emulatedMachines: ['q35*', 'pc-q35*'],
      handlerConfiguration: {
        restClient: { rateLimiter: { tokenBucketRateLimiter: { qps: 5000, burst: 6000 } } },
      },
      virtualMachineOptions: { disableSerialConsoleLog: {} },
    } as KubeVirtConfiguration,
    customizeComponents: {
      patches: [{ resourceName: 'virt-api', resourceType: 'Deployment', patch: '{}', type: 'strategic' }],
    },
    workloadUpdateStrategy: {},
  };
}

export function migrationSpec(vmiName: string): VirtualMachineInstanceMigrationSpec {
  return { vmiName, addedNodeSelector: { zone: 'a' } };
}
