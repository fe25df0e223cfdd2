import { describe, expect, it } from '@jest/globals';
import { newVmi, withDisk, withVolume } from '../testing/builders.ts';
import { withVmiDefaults } from '../defaults/vmi.ts';
import type { VirtualMachineInstance } from '../v1/objects.ts';
import type { AdmissionCause } from './causes.ts';
import { GATES } from './context.ts';
import { ctxWith, inv, ns, patched, req, type Patch } from './testing/fixtures.ts';
import { validateVmiCreate } from './vmi-create.ts';

const vmiOf = (patch: Patch = () => undefined, labels?: Record<string, string>): VirtualMachineInstance => ({
  metadata: { name: 'vm', namespace: 'ns', ...(labels !== undefined && { labels }) },
  spec: patched(patch),
});

const NO_MEMORY =
  "no memory requested, at least one of 'spec.domain.memory.guest', 'spec.domain.memory.hugepages.size' or 'spec.domain.resources.requests.memory' must be set";

describe('validateVmiCreate', () => {
  const ctx = { ...ctxWith(), isKubevirtServiceAccount: false };

  it.each<[string, VirtualMachineInstance, AdmissionCause[]]>([
    ['a valid VMI', vmiOf(), []],
    [
      'no memory at all (the cause has no field)',
      vmiOf((s) => {
        delete s.domain.memory;
        s.domain.resources = {};
      }),
      [req('', NO_MEMORY)],
    ],
    [
      'a volume without a disk',
      vmiOf((s) => s.volumes?.push({ name: 'data', emptyDisk: { capacity: '1Gi' } })),
      [inv('spec.domain.volumes[1].name', "spec.domain.volumes[1].name 'data' not found.")],
    ],
    [
      'a reserved label',
      vmiOf(undefined, { 'kubevirt.io/migrationJobUID': 'x' }),
      [
        ns(
          'metadata.labels',
          'creation of the following reserved kubevirt.io/ labels on a VMI object is prohibited',
        ),
      ],
    ],
    [
      'slirp',
      vmiOf((s) => (s.domain.devices.interfaces = [{ name: 'default', slirp: {} }])),
      [
        inv(
          'spec.domain.devices.interfaces[0].slirp',
          'Slirp interface support has been discontinued since v1.3',
        ),
      ],
    ],
    [
      'a network cause comes once',
      vmiOf((s) => s.domain.devices.interfaces?.push({ name: 'lonely', bridge: {} })),
      [
        inv(
          'spec.domain.devices.interfaces[1].name',
          "spec.domain.devices.interfaces[1].name 'lonely' not found.",
        ),
      ],
    ],
    [
      'a Hyper-V dependency',
      vmiOf((s) => (s.domain.features = { hyperv: { synic: { enabled: true } } })),
      [
        inv(
          'spec.domain.features.hyperv.domain.features.hyperv.synic',
          "'spec.domain.features.hyperv.domain.features.hyperv.synic' requires 'spec.domain.features.hyperv.domain.features.hyperv.vpindex', which was disabled.",
        ),
      ],
    ],
    [
      'an amd64 setting',
      vmiOf((s) => (s.domain.devices.watchdog = { name: 'w', diag288: {} })),
      [ns('spec.domain.devices.watchdog', 'amd64 only supports I6300ESB watchdog device')],
    ],
  ])('%s', (_name, vmi, expected) => {
    expect(validateVmiCreate(vmi, ctx)).toEqual(expected);
  });

  it('discontinued gates refuse what they used to allow (no field)', () => {
    const vmi = vmiOf((s) => (s.domain.devices.interfaces = [{ name: 'default', passt: {} }]));
    expect(validateVmiCreate(vmi, { ...ctxWith([GATES.PASST]), isKubevirtServiceAccount: false })).toEqual([
      ns(
        '',
        'Passt network binding is discontinued since v1.3. Please refer to Kubevirt user guide for alternatives.',
      ),
    ]);
  });

  it('a reserved label from a KubeVirt service account', () => {
    expect(
      validateVmiCreate(vmiOf(undefined, { 'kubevirt.io/nodeName': 'n' }), {
        ...ctx,
        isKubevirtServiceAccount: true,
      }),
    ).toEqual([]);
  });

  it('accepts what the mutating webhook makes of a minimal VMI', () => {
    const vmi = withVmiDefaults(
      newVmi(
        withDisk({ name: 'root' }),
        withVolume({ name: 'root', containerDisk: { image: 'img' } }),
        (s) => {
          s.domain.resources = { requests: { memory: '128Mi' } };
        },
      ),
    );
    expect(validateVmiCreate(vmi, ctx)).toEqual([]);
  });
});
