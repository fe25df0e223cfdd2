/**
 * Launcher Pod goldens: testdata/<case>.in.json is a VMI as the VMI controller sees it, rendered with the
 * case's config and compared, as an exact string, with testdata/<case>.pod.json. UPDATE_GOLDEN=1 rewrites them.
 */
import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { vmi as vmiFixture } from '../../kubevirt/testing/objects.ts';
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
];

describe('newLauncherPod goldens', () => {
  it.each(CASES)('%s', (name, cfg) => {
    const vmi = JSON.parse(golden.read(`${name}.in.json`)) as VirtualMachineInstance;
    const before = structuredClone(vmi);
    golden.expectJson(`${name}.pod.json`, newLauncherPod(vmi, cfg));
    expect(vmi).toEqual(before);
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
    ['the VMI name', {}, 'testvm'],
    ['spec.hostname, dots made dashes', { hostname: 'a.b.c' }, 'a-b-c'],
  ])('%s', (_n, spec, want) => {
    expect(launcherHostname(vmiFixture((v) => Object.assign(v.spec, spec)))).toBe(want);
  });
});

describe('the launcher Pod’s annotations', () => {
  it('are the VMI’s but kubectl’s and the API version marks, with the domain and default container', () => {
    const vmi = vmiFixture();
    vmi.metadata.name = 'a';
    vmi.metadata.annotations = {
      'cni.cilium.io/ipAddress': '10.66.0.7',
      'network.deckhouse.io/networks-spec': '[{"type":"Network","name":"blue"}]',
      'kubectl.kubernetes.io/last-applied-configuration': '{}',
      'kubevirt.io/latest-observed-api-version': 'v1',
      'kubevirt.io/storage-observed-api-version': 'v1',
    };
    expect(newLauncherPod(vmi, { image: IMAGE }).metadata.annotations).toEqual({
      'kubevirt.io/domain': 'a',
      'cni.cilium.io/ipAddress': '10.66.0.7',
      'network.deckhouse.io/networks-spec': '[{"type":"Network","name":"blue"}]',
      'kubectl.kubernetes.io/default-container': 'compute',
    });
  });
});
