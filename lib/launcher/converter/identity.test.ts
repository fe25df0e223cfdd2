import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { withSpec } from '../../kubevirt/testing/builders.ts';
import { identityConfigurator } from './identity.ts';
import { runConfigurator, TEST_UID, testCtx, testVmi } from './testing/vmi.ts';

describe('identityConfigurator', () => {
  it('names the domain <namespace>_<name>, keeps the uid and the default grace period', () => {
    const d = runConfigurator(identityConfigurator, testVmi());
    expect(d.name).toBe('default_testvmi');
    expect(d.metadata).toEqual({ uid: TEST_UID, gracePeriodSeconds: 30 });
    expect(d.uuid).toBeUndefined();
  });

  it.each([
    [false, 'kvm'],
    [true, 'qemu'],
  ] as const)('emulation %p → domain type %p', (emulation, type) => {
    expect(runConfigurator(identityConfigurator, testVmi(), testCtx({ emulation })).type).toBe(type);
  });

  it('takes the firmware UUID and the grace period from the spec', () => {
    const vmi = testVmi(
      withSpec((s) => {
        s.domain.firmware = { uuid: '5d307ca9-b3ef-428c-8861-06e72d69f223' };
        s.terminationGracePeriodSeconds = 0;
      }),
    );
    const d = runConfigurator(identityConfigurator, vmi);
    expect(d.uuid).toBe('5d307ca9-b3ef-428c-8861-06e72d69f223');
    expect(d.metadata.gracePeriodSeconds).toBe(0);
  });

  it.each<[string, (v: VirtualMachineInstance) => void, string]>([
    ['no name', (v) => delete v.metadata.name, 'metadata.name'],
    ['no namespace', (v) => (v.metadata.namespace = ''), 'metadata.namespace'],
    ['no uid', (v) => delete v.metadata.uid, 'metadata.uid'],
    ['a uid that escapes its directory', (v) => (v.metadata.uid = '../etc'), 'metadata.uid'],
    [
      'a bad firmware uuid',
      (v) => (v.spec.domain.firmware = { uuid: 'not-a-uuid' }),
      'spec.domain.firmware.uuid',
    ],
  ])('%s → error at %s', (_, mutate, field) => {
    const vmi = testVmi();
    mutate(vmi);
    expect(() => runConfigurator(identityConfigurator, vmi)).toThrow(
      expect.objectContaining({ field, code: 'KV_ERR_INVALID' }),
    );
  });
});
