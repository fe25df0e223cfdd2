import { describe, expect, it } from '@jest/globals';
import { describeState } from './lifecycle.ts';
import { fromWire, toWire, uuidFromBytes, uuidToBytes } from './domain-ref.ts';
import { unpackVersion } from './host.ts';
import { typedParamsToRecord } from './typed-params.ts';

describe('describeState', () => {
  it.each([
    { state: 1, reason: 1, want: ['running', 'booted'] },
    { state: 1, reason: 5, want: ['running', 'unpaused'] },
    { state: 3, reason: 1, want: ['paused', 'user'] },
    { state: 3, reason: 11, want: ['paused', 'starting_up'] },
    { state: 4, reason: 1, want: ['shutdown', 'user'] },
    { state: 5, reason: 2, want: ['shutoff', 'destroyed'] },
    { state: 5, reason: 3, want: ['shutoff', 'crashed'] },
    { state: 6, reason: 1, want: ['crashed', 'panicked'] },
    { state: 7, reason: 0, want: ['pmsuspended', 'unknown'] },
    { state: 5, reason: 77, want: ['shutoff', 'unknown'] },
    { state: 12, reason: 0, want: ['unknown', 'unknown'] },
  ])('state $state reason $reason is $want', ({ state, reason, want }) => {
    expect(describeState(state, reason)).toEqual({
      state: want[0],
      reason: want[1],
      stateCode: state,
      reasonCode: reason,
    });
  });
});

describe('UUIDs', () => {
  const text = '0b3c5a1e-3c8a-4d5e-9f00-112233445566';
  it('round-trips between text and the 16 wire bytes', () => {
    const b = uuidToBytes(text);
    expect(b).toHaveLength(16);
    expect(b[0]).toBe(0x0b);
    expect(uuidFromBytes(b)).toBe(text);
    expect(uuidFromBytes(uuidToBytes(text.toUpperCase().replaceAll('-', '')))).toBe(text);
    expect(fromWire(toWire({ name: 'a', uuid: text, id: -1 }))).toEqual({ name: 'a', uuid: text, id: -1 });
  });
  it.each(['', 'xyz', '0b3c5a1e-3c8a-4d5e-9f00-1122334455', '0b3c5a1e-3c8a-4d5e-9f00-11223344556g'])(
    'rejects %j',
    (bad) => {
      expect(() => uuidToBytes(bad)).toThrow(/not a UUID/);
    },
  );
});

describe('unpackVersion', () => {
  it.each([
    { packed: 9000000n, text: '9.0.0' },
    { packed: 7002022n, text: '7.2.22' },
    { packed: 10_010_001, text: '10.10.1' },
  ])('$packed is $text', ({ packed, text }) => {
    expect(unpackVersion(packed).text).toBe(text);
  });
});

describe('typedParamsToRecord', () => {
  it('keeps each field with its value as a number, string or boolean', () => {
    expect(
      typedParamsToRecord([
        { field: 'state.state', value: { tag: 1, value: 1 } },
        { field: 'vcpu.current', value: { tag: 2, value: 2 } },
        { field: 'cpu.time', value: { tag: 4, value: 123456789012n } },
        { field: 'delta', value: { tag: 3, value: -5n } },
        { field: 'ratio', value: { tag: 5, value: 0.5 } },
        { field: 'fs.0.ro', value: { tag: 6, value: 1 } },
        { field: 'hostname', value: { tag: 7, value: 'guest' } },
      ]),
    ).toEqual({
      'state.state': 1,
      'vcpu.current': 2,
      'cpu.time': 123456789012,
      delta: -5,
      ratio: 0.5,
      'fs.0.ro': true,
      hostname: 'guest',
    });
  });
});
