import { describe, expect, it } from '@jest/globals';
import { GATES } from './context.ts';
import { ctxWith, inv, ns } from './testing/fixtures.ts';
import { validateVmiMetadata, type MetadataLike } from './vmi-metadata.ts';
import type { AdmissionCause } from './causes.ts';

describe('validateVmiMetadata', () => {
  it.each<[string, MetadataLike, boolean, AdmissionCause[]]>([
    ['plain labels', { labels: { app: 'web', 'kubevirt.io/vm': 'x' } }, false, []],
    [
      'a reserved label from a user',
      { labels: { 'kubevirt.io/nodeName': 'node-1' } },
      false,
      [
        ns(
          'metadata.labels',
          'creation of the following reserved kubevirt.io/ labels on a VMI object is prohibited',
        ),
      ],
    ],
    ['a reserved label from KubeVirt', { labels: { 'kubevirt.io/created-by': 'uid' } }, true, []],
    [
      'a sidecar annotation (Sidecar is on)',
      { annotations: { 'hooks.kubevirt.io/hookSidecars': '[]' } },
      false,
      [],
    ],
    [
      'an ignition annotation',
      { annotations: { 'kubevirt.io/ignitiondata': '{}' } },
      false,
      [
        inv(
          'metadata.annotations',
          'ExperimentalIgnitionSupport feature gate is not enabled in kubevirt-config, invalid entry metadata.annotations.kubevirt.io/ignitiondata',
        ),
      ],
    ],
  ])('%s', (_name, meta, isKubevirtServiceAccount, expected) => {
    expect(validateVmiMetadata(meta, { ...ctxWith(), isKubevirtServiceAccount }, 'metadata')).toEqual(
      expected,
    );
  });

  it('a sidecar annotation without Sidecar, on a VM template', () => {
    const meta = { annotations: { 'hooks.kubevirt.io/hookSidecars': '[]' } };
    expect(
      validateVmiMetadata(
        meta,
        { ...ctxWith([GATES.HOTPLUG_VOLUMES]), isKubevirtServiceAccount: false },
        'spec.template.metadata',
      ),
    ).toEqual([
      inv(
        'spec.template.metadata.annotations',
        'sidecar feature gate is not enabled in kubevirt-config, invalid entry spec.template.metadata.annotations.hooks.kubevirt.io/hookSidecars',
      ),
    ]);
  });
});
