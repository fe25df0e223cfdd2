/**
 * Launcher Pod goldens: testdata/<case>.in.json is a VMI as the VMI controller sees it, rendered with the
 * case's config and compared, as an exact string, with testdata/<case>.pod.json. UPDATE_GOLDEN=1 rewrites them.
 */
import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import { vmi as vmiFixture, VMI_UID } from '../../kubevirt/testing/objects.ts';
import { goldens } from '../../kernel/testing/golden.ts';
import { launcherHostname, launcherPodName, newLauncherPod, type LauncherPodConfig } from './launcher-pod.ts';

const golden = goldens(import.meta.url);
const IMAGE = 'registry.example/kubevirt-ts/virt:1.0.0';

const CASES: readonly [string, LauncherPodConfig][] = [
  ['minimal', { image: IMAGE }],
  [
    'vm-child',
    { image: IMAGE, nodeSelector: { 'node-role.kubernetes.io/worker': '' }, imagePullSecret: 'regcred' },
  ],
  ['dedicated-emulation', { image: IMAGE, allowEmulation: true, root: true, imagePullPolicy: 'Always' }],
  // 1Gi hugepages (the guest's memory as pages, the hugetlbfs emptyDirs) and two virtiofs shares, in an image
  // that has an unprivileged virtiofsd.
  ['hugepages-virtiofs', { image: IMAGE, virtiofsd: '/usr/libexec/virtiofsd' }],
  ['probes', { image: IMAGE }],
  // A GPU as Deckhouse's kvbuilder claims it and a USB device added by addresourceclaim (hotpluggable), two
  // devices on one request: the claims on the Pod, each claim request once in the container.
  ['dra-devices', { image: IMAGE }],
];

describe('newLauncherPod goldens', () => {
  it.each(CASES)('%s', (name, cfg) => {
    const vmi = JSON.parse(golden.read(`${name}.in.json`)) as VirtualMachineInstance;
    const before = structuredClone(vmi);
    golden.expectJson(`${name}.pod.json`, newLauncherPod(vmi, cfg));
    expect(vmi).toEqual(before);
  });
});

describe('virtiofs filesystems', () => {
  it('get no virtiofsd containers nor socket volume from an image without an unprivileged virtiofsd', () => {
    const vmi = JSON.parse(golden.read('hugepages-virtiofs.in.json')) as VirtualMachineInstance;
    const socketVolume = (p: Pod): boolean =>
      (p.spec['volumes'] as { name: string }[]).some((v) => v.name === 'virtiofs-containers') ||
      (p.spec.containers[0]?.volumeMounts ?? []).some((m) => m.name === 'virtiofs-containers');
    const without = newLauncherPod(vmi, { image: IMAGE });
    expect(without.spec.containers.map((c) => c.name)).toEqual(['compute']);
    expect(socketVolume(without)).toBe(false);
    const withd = newLauncherPod(vmi, { image: IMAGE, virtiofsd: '/usr/libexec/virtiofsd' });
    expect(withd.spec.containers.map((c) => c.name)).toEqual(['compute', 'virtiofs-settings', 'virtiofs-data']);
    expect(socketVolume(withd)).toBe(true);
  });
});

describe('the backend-storage claim', () => {
  const persistent = (): VirtualMachineInstance => {
    const v = JSON.parse(golden.read('minimal.in.json')) as VirtualMachineInstance;
    v.spec.domain.devices.tpm = { persistent: true };
    v.spec.domain.firmware = { bootloader: { efi: { persistent: true } } };
    return v;
  };

  it('is mounted for a persistent TPM and EFI: its meta, swtpm, its local CA and the NVRAM', () => {
    const pod = newLauncherPod(persistent(), { image: IMAGE }, 'persistent-state-for-testvmi');
    const volumes = pod.spec['volumes'] as { name: string; persistentVolumeClaim?: { claimName: string } }[];
    expect(volumes.find((v) => v.name === 'vm-state')?.persistentVolumeClaim?.claimName).toBe(
      'persistent-state-for-testvmi',
    );
    const compute = (
      pod.spec['containers'] as { name: string; volumeMounts: { name: string; subPath?: string }[] }[]
    ).find((c) => c.name === 'compute');
    const onClaim = (compute?.volumeMounts ?? []).filter((m) => m.name === 'vm-state').map((m) => m.subPath);
    expect(onClaim).toEqual(['meta', 'swtpm', 'swtpm-localca', 'nvram']);
  });

  it('must be there: a Pod without it is not rendered', () => {
    expect(() => newLauncherPod(persistent(), { image: IMAGE })).toThrow(/no backend-storage claim/);
  });
});

describe('launcherPodName', () => {
  it('is stable for a VMI and differs between VMIs of the same name', () => {
    const a = vmiFixture((v) => (v.metadata.uid = 'uid-a'));
    const b = vmiFixture((v) => (v.metadata.uid = 'uid-b'));
    expect(launcherPodName(a)).toBe(launcherPodName(structuredClone(a)));
    expect(launcherPodName(a)).not.toBe(launcherPodName(b));
    expect(launcherPodName(a)).toMatch(/^virt-launcher-testvm-[0-9a-f]{5}$/);
  });

  it('fits in 63 characters and never ends the name part with a dash', () => {
    const v = vmiFixture((x) => (x.metadata.name = `${'a'.repeat(42)}-bbbb`));
    const name = launcherPodName(v);
    expect(name.length).toBeLessThanOrEqual(63);
    expect(name).toMatch(/^virt-launcher-a{42}-[0-9a-f]{5}$/);
  });
});

describe('launcherHostname', () => {
  it.each([
    ['the VMI name', 'testvm', {}, 'testvm'],
    ['spec.hostname over the name', 'testvm', { hostname: 'guest' }, 'guest'],
    ['the name up to its first dot', 'web.prod.example', {}, 'web'],
    ['a long name cut to 63', `${'a'.repeat(70)}.b`, {}, 'a'.repeat(63)],
  ])('%s', (_n, name, spec, want) => {
    const v = vmiFixture((x) => {
      x.metadata.name = name;
      Object.assign(x.spec, spec);
    });
    expect(launcherHostname(v)).toBe(want);
  });
});

/** The three labels KubeVirt sets on every launcher Pod of the fixture VMI (name testvm). */
const OWN_LABELS = {
  'kubevirt.io': 'virt-launcher',
  'kubevirt.io/created-by': VMI_UID,
  'vm.kubevirt.io/name': 'testvm',
};

describe('the launcher Pod’s labels', () => {
  it.each<[string, Record<string, string>, Record<string, string>]>([
    ['a VMI without labels: the three of its own', {}, OWN_LABELS],
    ['a label of the VM’s template', { app: 'web' }, { app: 'web', ...OWN_LABELS }],
    ['kubevirt.io on the VMI is overridden', { 'kubevirt.io': 'something' }, OWN_LABELS],
    ['kubevirt.io/created-by on the VMI is overridden', { 'kubevirt.io/created-by': 'other' }, OWN_LABELS],
    ['vm.kubevirt.io/name on the VMI is overridden', { 'vm.kubevirt.io/name': 'other' }, OWN_LABELS],
    [
      'other kubevirt.io labels pass',
      { 'kubevirt.io/vm': 'testvm', 'kubevirt.io/nodeName': 'node1' },
      { 'kubevirt.io/vm': 'testvm', 'kubevirt.io/nodeName': 'node1', ...OWN_LABELS },
    ],
    [
      'Deckhouse’s Pod Security Standards exemption',
      { 'security.deckhouse.io/skip-pss-check': 'true' },
      { 'security.deckhouse.io/skip-pss-check': 'true', ...OWN_LABELS },
    ],
    [
      'Deckhouse’s node shutdown inhibitor',
      { 'pod.deckhouse.io/inhibit-node-shutdown': '' },
      { 'pod.deckhouse.io/inhibit-node-shutdown': '', ...OWN_LABELS },
    ],
    [
      'Deckhouse’s CPU quota discount',
      { 'resource-quota-overrides.deckhouse.io/discount-cpu': '500m' },
      { 'resource-quota-overrides.deckhouse.io/discount-cpu': '500m', ...OWN_LABELS },
    ],
    [
      'Deckhouse’s memory quota discount',
      { 'resource-quota-overrides.deckhouse.io/discount-memory': '256Mi' },
      { 'resource-quota-overrides.deckhouse.io/discount-memory': '256Mi', ...OWN_LABELS },
    ],
  ])('%s', (_n, labels, want) => {
    const vmi = vmiFixture((v) => (v.metadata.labels = labels));
    expect(newLauncherPod(vmi, { image: IMAGE }).metadata.labels).toEqual(want);
  });

  it('names the VM after the Pod’s hostname', () => {
    const vmi = vmiFixture((v) => (v.spec.hostname = 'guest'));
    expect(newLauncherPod(vmi, { image: IMAGE }).metadata.labels).toMatchObject({
      'vm.kubevirt.io/name': 'guest',
    });
  });
});

/** The annotations KubeVirt sets on every launcher Pod of the fixture VMI (name testvm). */
const OWN_ANNOTATIONS = {
  'kubevirt.io/domain': 'testvm',
  'kubectl.kubernetes.io/default-container': 'compute',
};

type AnnotationRow = [name: string, on: Record<string, string>, want: Record<string, string>];
const kept = (name: string, on: Record<string, string>): AnnotationRow => [
  name,
  on,
  { ...on, ...OWN_ANNOTATIONS },
];
const dropped = (name: string, on: Record<string, string>): AnnotationRow => [
  `${name}: left off`,
  on,
  OWN_ANNOTATIONS,
];

describe('the launcher Pod’s annotations', () => {
  it.each<AnnotationRow>([
    kept('a VMI without annotations: the domain and default container', {}),
    dropped('kubectl’s', { 'kubectl.kubernetes.io/last-applied-configuration': '{}' }),
    dropped('the latest observed API version', { 'kubevirt.io/latest-observed-api-version': 'v1' }),
    dropped('the storage API version', { 'kubevirt.io/storage-observed-api-version': 'v1' }),
    kept('the VM generation', { 'kubevirt.io/vm-generation': '3' }),
    kept('Deckhouse’s Cilium address request', { 'cni.cilium.io/ipAddress': '10.66.0.7' }),
    kept('Deckhouse’s additional networks', {
      'network.deckhouse.io/networks-spec': '[{"type":"Network","name":"blue","ifName":"veth_n1"}]',
    }),
    kept('Deckhouse’s TAP provisioning mark', {
      'network.deckhouse.io/tap-provision-by-dvp-supported': 'true',
    }),
    kept('the bridge live-migration opt-in Deckhouse sets', {
      'kubevirt.io/allow-pod-bridge-network-live-migration': 'true',
    }),
    kept('the USB migration strategy Deckhouse sets', { 'kubevirt.io/usb-migration-strategy': 'ignore' }),
    kept('Deckhouse’s CPU request fraction', {
      'internal.virtualization.deckhouse.io/cpu-resources-requests-fraction': '25',
    }),
    kept('Deckhouse’s dynamic-cores topology mark', {
      'internal.virtualization.deckhouse.io/vcpu-topology-dynamic-cores': '',
    }),
  ])('%s', (_n, on, want) => {
    const vmi = vmiFixture((v) => (v.metadata.annotations = on));
    expect(newLauncherPod(vmi, { image: IMAGE }).metadata.annotations).toEqual(want);
  });

  it('take the VMI’s kubevirt.io/domain over the VMI name; only the default container is set after the copy', () => {
    const vmi = vmiFixture((v) => (v.metadata.annotations = { 'kubevirt.io/domain': 'other' }));
    expect(newLauncherPod(vmi, { image: IMAGE }).metadata.annotations).toEqual({
      'kubevirt.io/domain': 'other',
      'kubectl.kubernetes.io/default-container': 'compute',
    });
  });
});
