/**
 * Device attachment Pods: the golden of one (device-attachment.pod.json), and the plan's table: which claims
 * are hotplugged, which Pods are created and which deleted.
 */
import { describe, expect, it } from '@jest/globals';
import type { HostDevice, VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import { pod, vmi } from '../../kubevirt/testing/objects.ts';
import { goldens } from '../../kernel/testing/golden.ts';
import {
  heldClaim,
  hotplugClaims,
  newDeviceAttachmentPod,
  planDeviceAttachment,
} from './device-attachment.ts';

const golden = goldens(import.meta.url);
const cfg = { image: 'virt:cfg', imagePullSecret: 'regcred' };

/** A VMI whose host devices each name their own claim (from a template), and a second request of `usb`. */
function vmiWith(...claims: string[]): VirtualMachineInstance {
  return vmi((v) => {
    const devs: HostDevice[] = claims.map((c) => ({ name: `dev-${c}`, claimName: c, requestName: 'req' }));
    if (claims.includes('usb')) devs.push({ name: 'dev-usb-2', claimName: 'usb', requestName: 'req-2' });
    v.spec.domain.devices = { hostDevices: devs };
    v.spec.resourceClaims = claims.map((name) => ({ name, resourceClaimTemplateName: `${name}-template` }));
  });
}

/** The launcher Pod on n1, created with these claims. */
function launcher(...claims: string[]): Pod {
  return pod((p) => {
    p.spec.nodeName = 'n1';
    p.spec.containers = [{ name: 'compute', image: 'virt:1.0' }];
    p.spec['tolerations'] = [{ key: 'dedicated', operator: 'Exists' }];
    p.spec['resourceClaims'] = claims.map((name) => ({
      name,
      resourceClaimTemplateName: `${name}-template`,
    }));
  });
}

function holder(name: string, claim: string, deleting = false): Pod {
  return pod((p) => {
    p.metadata.name = name;
    p.spec['resourceClaims'] = [{ name: claim }];
    if (deleting) p.metadata.deletionTimestamp = '2026-12-07T00:00:00Z';
  });
}

describe('newDeviceAttachmentPod', () => {
  it('golden: one claim, each of its requests, on the launcher node in the launcher image', () => {
    const v = vmiWith('gpu', 'usb');
    const l = launcher('gpu');
    const claim = hotplugClaims(v, l)[0];
    expect(claim?.name).toBe('usb');
    const rendered = newDeviceAttachmentPod(v, l, claim ?? { name: '' }, cfg);
    golden.expectJson('device-attachment.pod.json', rendered);
    expect(heldClaim(rendered)).toBe('usb');
  });
});

describe('planDeviceAttachment', () => {
  const names = (ps: readonly Pod[]): (string | undefined)[] => ps.map(heldClaim);
  interface Row {
    /** The VMI's claims, the launcher Pod's, the device attachment Pods. */
    vmi: string[];
    launcher: string[];
    pods: Pod[];
    /** The claims of the Pods created, of those deleted. */
    create: string[];
    remove: string[];
  }
  const none = { pods: [], create: [], remove: [] };
  it.each<[string, Row]>([
    ['no hotplugged claim, no Pod', { ...none, vmi: ['a'], launcher: ['a'] }],
    ['a new claim gets a Pod', { ...none, vmi: ['a', 'b'], launcher: ['a'], create: ['b'] }],
    [
      'two new claims get one Pod each',
      { ...none, vmi: ['a', 'b', 'c'], launcher: ['a'], create: ['b', 'c'] },
    ],
    [
      'a claim with its Pod: nothing',
      { ...none, vmi: ['a', 'b'], launcher: ['a'], pods: [holder('p1', 'b')] },
    ],
    [
      'a removed claim loses its Pod',
      { ...none, vmi: ['a'], launcher: ['a'], pods: [holder('p1', 'b')], remove: ['b'] },
    ],
    [
      'a second Pod for the same claim goes',
      {
        ...none,
        vmi: ['a', 'b'],
        launcher: ['a'],
        pods: [holder('p1', 'b'), holder('p2', 'b')],
        remove: ['b'],
      },
    ],
    [
      'a Pod being deleted is neither kept nor deleted again',
      { ...none, vmi: ['a', 'b'], launcher: ['a'], pods: [holder('p1', 'b', true)], create: ['b'] },
    ],
    ["the launcher's own claims never get one", { ...none, vmi: ['a', 'b'], launcher: ['a', 'b'] }],
  ])('%s', (_n, r) => {
    const plan = planDeviceAttachment(vmiWith(...r.vmi), launcher(...r.launcher), r.pods, cfg);
    expect(names(plan.create)).toEqual(r.create);
    expect(names(plan.remove)).toEqual(r.remove);
  });
});
