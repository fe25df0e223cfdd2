/**
 * Attachment Pod golden: testdata/attachment-pod.in.json holds the VMI, its launcher Pod and the claims;
 * the Pod rendered for every hotplug volume is compared, as an exact string, with
 * testdata/attachment-pod.pod.json. UPDATE_GOLDEN=1 rewrites it.
 */
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { VirtualMachineInstance } from '../../api/index.ts';
import type { Pod } from '../../api/core/pod.ts';
import type { PersistentVolumeClaim } from '../../api/core/pvc.ts';
import { pod } from '../testing/fixtures.ts';
import { claims, pvc } from '../testing/storage-fixtures.ts';
import { newAttachmentPod } from './attachment-pod.ts';
import { hotplugVolumes } from './hotplug-volumes.ts';

const TESTDATA = path.join(path.dirname(fileURLToPath(import.meta.url)), 'testdata');
const UPDATE = process.env['UPDATE_GOLDEN'] === '1';

interface Case {
  vmi: VirtualMachineInstance;
  launcher: Pod;
  claims: PersistentVolumeClaim[];
}

describe('newAttachmentPod', () => {
  it('golden: filesystem, block, already mounted and missing claims', () => {
    const input = JSON.parse(readFileSync(path.join(TESTDATA, 'attachment-pod.in.json'), 'utf8')) as Case;
    const before = structuredClone(input);
    const rendered = newAttachmentPod({
      vmi: input.vmi,
      launcher: input.launcher,
      volumes: hotplugVolumes(input.vmi, input.launcher),
      claim: claims(...input.claims),
      cfg: { image: 'registry.example/kubevirt-ts/virt:1.0.0', imagePullSecret: 'regcred' },
    });
    const json = `${JSON.stringify(rendered, null, 2)}\n`;
    const golden = path.join(TESTDATA, 'attachment-pod.pod.json');
    if (UPDATE) writeFileSync(golden, json);
    expect(existsSync(golden)).toBe(true);
    expect(json).toBe(readFileSync(golden, 'utf8'));
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
