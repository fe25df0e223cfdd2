/**
 * Objects for the rewriter benchmark, as the cluster stores them (internal names in labels, annotations, owner
 * references and node affinity, where the rewriter restores them): a virt-launcher-sized Pod (about 8 KB once
 * the API server has defaulted it) and a VMI padded to a given size.
 */
import { richVmiSpec } from '../../../kubevirt/testing/fixtures.ts';
import { IG, INT } from '../../../rename/testing/objects.ts';

const NODE = 'node.virtualization.deckhouse.io';

function computeContainer(vm: string): Record<string, unknown> {
  const mounts = [
    'private',
    'public',
    'ephemeral-disks',
    'container-disks',
    'libvirt-runtime',
    'sockets',
    'hotplug-disks',
    'virt-bin-share-dir',
  ];
  return {
    name: 'compute',
    image: 'registry.example.com/virtualization/virt-launcher@sha256:' + 'ab'.repeat(32),
    imagePullPolicy: 'IfNotPresent',
    command: [
      '/usr/bin/virt-launcher-monitor',
      '--qemu-timeout',
      '257s',
      '--name',
      vm,
      '--uid',
      '5b7c1c1e-0000-4000-8000-000000000001',
      '--namespace',
      'bench',
      '--kubevirt-share-dir',
      '/var/run/kubevirt',
      '--ephemeral-disk-dir',
      '/var/run/kubevirt-ephemeral-disks',
      '--container-disk-dir',
      '/var/run/kubevirt/container-disks',
      '--grace-period-seconds',
      '195',
    ],
    env: [
      { name: 'XDG_CACHE_HOME', value: '/var/run/kubevirt-private' },
      { name: 'XDG_CONFIG_HOME', value: '/var/run/kubevirt-private' },
      { name: 'XDG_RUNTIME_DIR', value: '/var/run' },
      { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
    ],
    resources: {
      limits: {
        cpu: '2',
        memory: '4479Mi',
        'devices.virtualization.deckhouse.io/kvm': '1',
        'devices.virtualization.deckhouse.io/tun': '1',
        'devices.virtualization.deckhouse.io/vhost-net': '1',
      },
      requests: {
        cpu: '2',
        memory: '4479Mi',
        'ephemeral-storage': '50M',
        'devices.virtualization.deckhouse.io/kvm': '1',
        'devices.virtualization.deckhouse.io/tun': '1',
        'devices.virtualization.deckhouse.io/vhost-net': '1',
      },
    },
    securityContext: {
      capabilities: { add: ['NET_BIND_SERVICE', 'SYS_NICE'], drop: ['ALL'] },
      privileged: false,
      runAsGroup: 107,
      runAsNonRoot: true,
      runAsUser: 107,
    },
    volumeMounts: mounts.map((name) => ({ name, mountPath: `/var/run/kubevirt/${name}` })),
    ports: [{ name: 'vnc', containerPort: 5900, protocol: 'TCP' }],
  };
}

/** A virt-launcher Pod of VM `vm-<i>` in `namespace`. */
export function launcherPod(index: number, namespace: string): Record<string, unknown> {
  const vm = `vm-${index}`;
  const uid = `5b7c1c1e-0000-4000-8000-${String(index).padStart(12, '0')}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `virt-launcher-${vm}-x7k2p`,
      namespace,
      labels: {
        [INT]: 'virt-launcher',
        [`${INT}/created-by`]: uid,
        [`vm.${INT}/name`]: vm,
        [`${INT}/nodeName`]: 'node-1',
        'virtualization.deckhouse.io/virtual-machine-name': vm,
      },
      annotations: {
        [`${INT}/domain`]: vm,
        [`${INT}/migrationTransportUnix`]: 'true',
        [`${INT}/vm-generation`]: '3',
        'kubectl.kubernetes.io/default-container': 'compute',
        'descheduler.alpha.kubernetes.io/request-evict-only': '',
      },
      ownerReferences: [
        {
          apiVersion: `${IG}/v1`,
          kind: 'InternalVirtualizationVirtualMachineInstance',
          name: vm,
          uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      automountServiceAccountToken: false,
      containers: [computeContainer(vm)],
      volumes: [
        ...[
          'private',
          'public',
          'sockets',
          'virt-bin-share-dir',
          'libvirt-runtime',
          'ephemeral-disks',
          'container-disks',
          'hotplug-disks',
        ].map((name) => ({ name, emptyDir: {} })),
        { name: 'vd-root', persistentVolumeClaim: { claimName: `vd-${vm}-root` } },
      ],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              {
                matchExpressions: [
                  { key: `cpu-model.${NODE}/Nehalem`, operator: 'In', values: ['true'] },
                  { key: `${INT}/schedulable`, operator: 'In', values: ['true'] },
                ],
              },
            ],
          },
        },
      },
      nodeSelector: { [`${INT}/schedulable`]: 'true', [`cpu-vendor.${NODE}/Intel`]: 'true' },
      tolerations: [
        { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
        { key: 'dedicated', operator: 'Equal', value: 'virtualization', effect: 'NoExecute' },
      ],
      hostname: vm,
      dnsPolicy: 'ClusterFirst',
      terminationGracePeriodSeconds: 210,
      enableServiceLinks: false,
    },
  };
}

/**
 * A stored VMI named `name` in `namespace`: 'large' carries a full spec (about 5 KB as the API server lists it,
 * managedFields included), 'small' a minimal one (about 1.5 KB).
 */
export function benchVmi(name: string, namespace: string, size: 'large' | 'small'): Record<string, unknown> {
  return {
    apiVersion: `${IG}/v1`,
    kind: 'InternalVirtualizationVirtualMachineInstance',
    metadata: {
      name,
      namespace,
      labels: { [`${INT}/vm`]: name, [`${INT}/nodeName`]: 'node-1', [`vm.${INT}/name`]: name },
      annotations: {
        [`${INT}/latest-observed-api-version`]: 'v1',
        [`${INT}/storage-observed-api-version`]: 'v1',
      },
    },
    spec: size === 'large' ? richVmiSpec() : { domain: { devices: {} } },
  };
}
