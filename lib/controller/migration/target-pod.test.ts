/**
 * Target Pod goldens: testdata/<case>.vmi.json is the VMI, rendered with the migration below and compared, as an
 * exact string, with testdata/<case>.target-pod.json. UPDATE_GOLDEN=1 rewrites them.
 */
import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance, VirtualMachineInstanceMigration } from '../../kubevirt/index.ts';
import { goldens } from '../../kernel/testing/golden.ts';
import { newLauncherPod } from '../vmi/launcher-pod.ts';
import { newTargetPod } from './target-pod.ts';

const golden = goldens(import.meta.url);
const CFG = {
  image: 'registry.example/kubevirt-ts/virt:1.0.0',
  nodeSelector: { 'node-role.kubernetes.io/worker': '' },
};

const migration = (vmi: VirtualMachineInstance): VirtualMachineInstanceMigration => ({
  apiVersion: 'kubevirt.io/v1',
  kind: 'VirtualMachineInstanceMigration',
  metadata: {
    name: `${vmi.metadata.name ?? ''}-mig`,
    namespace: 'ns1',
    uid: '7d1e2f00-0000-4000-8000-00000000aaaa',
  },
  spec: {
    vmiName: vmi.metadata.name ?? '',
    addedNodeSelector: { 'topology.kubernetes.io/zone': 'zone-b', 'disk-type': 'any' },
  },
});

const read = (name: string): VirtualMachineInstance =>
  JSON.parse(golden.read(`${name}.vmi.json`)) as VirtualMachineInstance;

describe('newTargetPod goldens', () => {
  // minimal: no affinity of its own; affinity: a VMI with node affinity, a pod anti-affinity term and a
  // nodeSelector key that the migration's addedNodeSelector also names.
  it.each(['minimal', 'affinity'])('%s', (name) => {
    const vmi = read(name);
    const before = structuredClone(vmi);
    golden.expectJson(`${name}.target-pod.json`, newTargetPod(vmi, migration(vmi), CFG));
    expect(vmi).toEqual(before);
  });
});

describe('the target Pod beside the source Pod', () => {
  it('has its own name and the same owner and containers', () => {
    const vmi = read('minimal');
    const source = newLauncherPod(vmi, CFG);
    const target = newTargetPod(vmi, migration(vmi), CFG);
    expect(target.metadata.name).not.toBe(source.metadata.name);
    expect(target.metadata.name).toMatch(/^virt-launcher-minimal-[0-9a-f]{5}$/);
    expect(target.metadata.ownerReferences).toEqual(source.metadata.ownerReferences);
    expect(target.spec.containers).toEqual(source.spec.containers);
  });

  it('is named by the migration: a second migration gets another Pod', () => {
    const vmi = read('minimal');
    const other = migration(vmi);
    other.metadata.uid = '7d1e2f00-0000-4000-8000-00000000bbbb';
    expect(newTargetPod(vmi, other, CFG).metadata.name).not.toBe(
      newTargetPod(vmi, migration(vmi), CFG).metadata.name,
    );
  });
});
