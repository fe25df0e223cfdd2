import { describe, expect, it } from '@jest/globals';
import { uuidToBytes } from './domain-ref.ts';
import { EVENT_KINDS } from './events.ts';
import { EVENT_MSG } from './procedures.ts';
import { encode } from './xdr.ts';

const uuid = '0b3c5a1e-3c8a-4d5e-9f00-112233445566';
const dom = { name: 'default_vmi', uuid: uuidToBytes(uuid), id: 4 };
const domain = { name: 'default_vmi', uuid, id: 4 };

describe('lifecycle events', () => {
  it.each([
    { event: 0, detail: 0, want: ['defined', 'added'] },
    { event: 1, detail: 0, want: ['undefined', 'removed'] },
    { event: 2, detail: 0, want: ['started', 'booted'] },
    { event: 3, detail: 0, want: ['suspended', 'paused'] },
    { event: 3, detail: 2, want: ['suspended', 'ioerror'] },
    { event: 4, detail: 0, want: ['resumed', 'unpaused'] },
    { event: 5, detail: 0, want: ['stopped', 'shutdown'] },
    { event: 5, detail: 1, want: ['stopped', 'destroyed'] },
    { event: 5, detail: 2, want: ['stopped', 'crashed'] },
    { event: 5, detail: 5, want: ['stopped', 'failed'] },
    { event: 6, detail: 2, want: ['shutdown', 'host'] },
    { event: 8, detail: 0, want: ['crashed', 'panicked'] },
    { event: 5, detail: 99, want: ['stopped', 'unknown'] },
    { event: 42, detail: 0, want: ['unknown', 'unknown'] },
  ])('event $event detail $detail is $want', ({ event, detail, want }) => {
    const payload = encode(EVENT_MSG.lifecycle, { callbackID: 7, msg: { dom, event, detail } });
    expect(EVENT_KINDS.lifecycle.decode(payload)).toEqual({
      callbackID: 7,
      event: {
        kind: 'lifecycle',
        domain,
        event: want[0],
        detail: want[1],
        eventCode: event,
        detailCode: detail,
      },
    });
  });
});

describe('other domain events', () => {
  it.each([
    { state: 1, reason: 2, want: { state: 'connected', reason: 'channel' } },
    { state: 2, reason: 1, want: { state: 'disconnected', reason: 'domain_started' } },
    { state: 9, reason: 9, want: { state: 'unknown', reason: 'unknown' } },
  ])('agent lifecycle $state/$reason', ({ state, reason, want }) => {
    const payload = encode(EVENT_MSG.agentLifecycle, { callbackID: 3, dom, state, reason });
    expect(EVENT_KINDS['agent-lifecycle'].decode(payload)).toEqual({
      callbackID: 3,
      event: { kind: 'agent-lifecycle', domain, ...want, stateCode: state, reasonCode: reason },
    });
  });

  it('device removed carries the alias', () => {
    const payload = encode(EVENT_MSG.deviceRemoved, { callbackID: 5, msg: { dom, devAlias: 'ua-disk1' } });
    expect(EVENT_KINDS['device-removed'].decode(payload)).toEqual({
      callbackID: 5,
      event: { kind: 'device-removed', domain, alias: 'ua-disk1' },
    });
  });

  it.each([
    { kind: 'device-added' as const, codec: EVENT_MSG.deviceAdded },
    { kind: 'device-removal-failed' as const, codec: EVENT_MSG.deviceRemovalFailed },
  ])('$kind carries the alias', ({ kind, codec }) => {
    const payload = encode(codec, { callbackID: 6, dom, devAlias: 'scsi0-0-0-1' });
    expect(EVENT_KINDS[kind].decode(payload).event).toEqual({ kind, domain, alias: 'scsi0-0-0-1' });
  });

  it('reboot names the domain', () => {
    const payload = encode(EVENT_MSG.reboot, { callbackID: 1, msg: { dom } });
    expect(EVENT_KINDS.reboot.decode(payload).event).toEqual({ kind: 'reboot', domain });
  });
});
