/** Objects for the DRA status tests: a VMI with DRA devices, its Pod with claims, claims and slices. */
import type { Gpu, HostDevice, VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { DeviceAttribute, ResourceClaim, ResourceSlice } from '../../kubevirt/core/dra.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import { NS, pod, vmi } from '../../kubevirt/testing/objects.ts';

export const draVmi = (devices: { gpus?: Gpu[]; hostDevices?: HostDevice[] }): VirtualMachineInstance =>
  vmi((v) => {
    v.spec.domain.devices = { ...devices };
    v.spec.resourceClaims = [...(devices.gpus ?? []), ...(devices.hostDevices ?? [])].flatMap((d) =>
      d.claimName === undefined ? [] : [{ name: d.claimName, resourceClaimTemplateName: 't' }],
    );
    v.status = { phase: 'Scheduled', nodeName: 'n1' };
  });

/** The VMI's Pod on n1; `claims` maps Pod claim names to the ResourceClaims reported for them (null: none yet). */
export const draPod = (claims: Record<string, string | null>): Pod =>
  pod((p) => {
    p.spec.nodeName = 'n1';
    p.spec['resourceClaims'] = Object.keys(claims).map((name) => ({ name, resourceClaimTemplateName: 't' }));
    (p.status ??= {}).resourceClaimStatuses = Object.entries(claims).flatMap(([name, rc]) =>
      rc === null ? [] : [{ name, resourceClaimName: rc }],
    );
  });

/** A device attachment Pod named name holding Pod claim podClaim, reported as ResourceClaim rc. */
export const devicePod = (name: string, podClaim: string, rc: string): Pod =>
  pod((p) => {
    p.metadata.name = name;
    p.metadata.uid = `uid-${name}`;
    p.metadata.labels = { 'kubevirt.io': 'hotplug-device' };
    p.spec['resourceClaims'] = [{ name: podClaim, resourceClaimName: rc }];
    (p.status ??= {}).resourceClaimStatuses = [{ name: podClaim, resourceClaimName: rc }];
  });

export const claim = (name: string, ...results: [request: string, device: string][]): ResourceClaim => ({
  apiVersion: 'resource.k8s.io/v1',
  kind: 'ResourceClaim',
  metadata: { name, namespace: NS, resourceVersion: '1' },
  status: {
    allocation: {
      devices: {
        results: results.map(([request, device]) => ({ request, driver: 'd.example', pool: 'n1', device })),
      },
    },
  },
});

export const slice = (devices: Record<string, Record<string, DeviceAttribute>>): ResourceSlice => ({
  apiVersion: 'resource.k8s.io/v1',
  kind: 'ResourceSlice',
  metadata: { name: 'n1-d.example', resourceVersion: '1' },
  spec: {
    driver: 'd.example',
    pool: { name: 'n1' },
    nodeName: 'n1',
    devices: Object.entries(devices).map(([name, attributes]) => ({ name, attributes })),
  },
});
