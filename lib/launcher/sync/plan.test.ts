import { describe, expect, it } from '@jest/globals';
import type { Disk } from '../converter/index.ts';
import { diskDiff, planSync, type SyncInput } from './plan.ts';

const disk = (name: string): Disk => ({
  device: 'disk',
  type: 'file',
  source: { file: `/d/${name}` },
  target: { bus: 'virtio', dev: 'vda' },
  driver: { name: 'qemu', type: 'raw' },
  readonly: false,
  shareable: false,
  alias: { name, userDefined: true },
});

const base: SyncInput = {
  state: undefined,
  appliedXml: undefined,
  wantedXml: '<domain/>',
  appliedDisks: [],
  wantedDisks: [],
  vmiPhase: 'Scheduled',
  pausedByUser: false,
};

describe('planSync', () => {
  it.each<[string, Partial<SyncInput>, object]>([
    ['no domain: define and start', {}, { define: true, start: true, resume: false }],
    [
      'down, same XML, not yet run: start',
      { state: 'shutoff', appliedXml: '<domain/>' },
      { define: false, start: true },
    ],
    [
      'down, XML changed: redefine and start',
      { state: 'shutoff', appliedXml: '<old/>' },
      { define: true, start: true },
    ],
    [
      'down after running: leave it',
      { state: 'shutoff', vmiPhase: 'Running' },
      { define: false, start: false },
    ],
    [
      'crashed and final: leave it',
      { state: 'crashed', vmiPhase: 'Failed' },
      { define: false, start: false },
    ],
    [
      'running: nothing',
      { state: 'running', vmiPhase: 'Running' },
      { define: false, start: false, resume: false },
    ],
    ['paused by nobody: resume', { state: 'paused' }, { resume: true }],
    ['paused by the user: stay paused', { state: 'paused', pausedByUser: true }, { resume: false }],
  ])('%s', (_what, input, want) => {
    expect(planSync({ ...base, ...input })).toMatchObject(want);
  });

  it('hotplugs the disk difference of a running domain', () => {
    const plan = planSync({
      ...base,
      state: 'running',
      appliedDisks: [disk('root'), disk('gone')],
      wantedDisks: [disk('root'), disk('new')],
    });
    expect(plan.attach.map((d) => d.alias.name)).toEqual(['new']);
    expect(plan.detach.map((d) => d.alias.name)).toEqual(['gone']);
  });

  it('never hotplugs while the domain is down', () => {
    const plan = planSync({ ...base, state: 'shutoff', vmiPhase: 'Running', wantedDisks: [disk('new')] });
    expect(plan.attach).toEqual([]);
  });
});

describe('diskDiff', () => {
  it('keys disks by alias', () => {
    expect(diskDiff([disk('a')], [disk('a')])).toEqual({ attach: [], detach: [] });
  });
});
