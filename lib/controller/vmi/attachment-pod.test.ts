/**
 * Attachment Pod goldens: testdata/<case>.in.json holds the VMI, its launcher Pod and the claims; the Pod
 * rendered for every hotplug volume is compared, as an exact string, with testdata/<case>.pod.json.
 * UPDATE_GOLDEN=1 rewrites them.
 */
import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import type { PersistentVolumeClaim } from '../../kubevirt/core/pvc.ts';
import { pod } from '../../kubevirt/testing/objects.ts';
import { goldens } from '../../kernel/testing/golden.ts';
import { claims, pvc } from '../testing/storage-fixtures.ts';
import { newAttachmentPod } from './attachment-pod.ts';
import { hotplugVolumes } from './hotplug-volumes.ts';

const golden = goldens(import.meta.url);

interface Case {
  vmi: VirtualMachineInstance;
  launcher: Pod;
  claims: PersistentVolumeClaim[];
}

describe('newAttachmentPod', () => {
  it.each([
    ['attachment-pod', 'filesystem, block, already mounted and missing claims'],
    ['attachment-pod-images', 'hotpluggable containerDisks (pull policy, one pull secret) beside a claim'],
  ])('golden %s: %s', (name) => {
    const input = JSON.parse(golden.read(`${name}.in.json`)) as Case;
    const before = structuredClone(input);
    const rendered = newAttachmentPod({
      vmi: input.vmi,
      launcher: input.launcher,
      volumes: hotplugVolumes(input.vmi, input.launcher),
      claim: claims(...input.claims),
      cfg: { image: 'registry.example/kubevirt-ts/virt:1.0.0', imagePullSecret: 'regcred' },
    });
    golden.expectJson(`${name}.pod.json`, rendered);
    expect(input).toEqual(before);
  });

  it('without a compute container image it takes the configured launcher image', () => {
    const launcher = pod((p) => {
      p.spec.containers = [];
      p.spec.nodeName = 'n1';
    });
    const v = { name: 'hp', persistentVolumeClaim: { claimName: 'd', hotpluggable: true } };
    const rendered = newAttachmentPod({
      vmi: { ...launcherVmi(), spec: { ...launcherVmi().spec, volumes: [v] } },
      launcher,
      volumes: [v],
      claim: claims(pvc('d')),
      cfg: { image: 'virt:cfg' },
    });
    expect(rendered.spec.containers[0]?.image).toBe('virt:cfg');
    expect(rendered.spec['imagePullSecrets']).toBeUndefined();
    expect(rendered.spec['tolerations']).toBeUndefined();
  });
});

function launcherVmi(): VirtualMachineInstance {
  return { metadata: { name: 'x', namespace: 'default', uid: 'u' }, spec: { domain: { devices: {} } } };
}
