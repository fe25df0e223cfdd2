import { describe, expect, it } from '@jest/globals';
import { FREEZE_NOT_SET, FREEZE_UNMARSHAL, parseFreezeBody } from './freeze-body.ts';
import { parseGoDuration } from './go-duration.ts';

describe('parseFreezeBody', () => {
  it.each<[string, string, number]>([
    ['KubeVirt virtctl default', '{"unfreezeTimeout":"5m0s"}', 300],
    ['seconds', '{"unfreezeTimeout":"30s"}', 30],
    ['fraction truncated', '{"unfreezeTimeout":"1.9s"}', 1],
    ['hours and minutes', '{"unfreezeTimeout":"1h30m"}', 5400],
    ['zero', '{"unfreezeTimeout":"0"}', 0],
    ['below a second', '{"unfreezeTimeout":"500ms"}', 0],
    ['case-insensitive field', '{"UnfreezeTimeout":"10s"}', 10],
    ['extra fields ignored', '{"unfreezeTimeout":"2m","other":1}', 120],
    ['YAML body', 'unfreezeTimeout: 45s\n', 45],
    ['leading whitespace', '  \n{"unfreezeTimeout":"1m"}', 60],
  ])('%s', (_name, body, seconds) => {
    expect(parseFreezeBody(body)).toEqual({ unfreezeTimeoutSeconds: seconds });
  });

  it.each<[string, string, string]>([
    ['empty body', '', FREEZE_NOT_SET],
    ['blank body', ' \n', FREEZE_NOT_SET],
    ['empty object', '{}', FREEZE_NOT_SET],
    ['null field', '{"unfreezeTimeout":null}', FREEZE_NOT_SET],
    ['null document', 'null', FREEZE_NOT_SET],
    ['other field only', '{"timeout":"5m"}', FREEZE_NOT_SET],
    ['broken JSON', '{"unfreezeTimeout":', FREEZE_UNMARSHAL],
    ['number instead of a duration', '{"unfreezeTimeout":300}', FREEZE_UNMARSHAL],
    ['no unit', '{"unfreezeTimeout":"300"}', FREEZE_UNMARSHAL],
    ['unknown unit', '{"unfreezeTimeout":"5d"}', FREEZE_UNMARSHAL],
    ['empty duration', '{"unfreezeTimeout":""}', FREEZE_UNMARSHAL],
    ['a list', '[1]', FREEZE_UNMARSHAL],
    ['a scalar', 'hello', FREEZE_UNMARSHAL],
    ['YAML number', 'unfreezeTimeout: 300', FREEZE_UNMARSHAL],
  ])('%s answers 400 %j', (_name, body, message) => {
    expect(parseFreezeBody(body)).toEqual({ status: 400, message });
  });
});

describe('parseGoDuration', () => {
  it.each<[string, number | undefined]>([
    ['0', 0],
    ['+0', 0],
    ['-0', 0],
    ['5m0s', 300e9],
    ['1h', 3600e9],
    ['1.5h', 5400e9],
    ['.5s', 0.5e9],
    ['1.s', 1e9],
    ['-2m', -120e9],
    ['+3s', 3e9],
    ['10ms', 10e6],
    ['7us', 7000],
    ['7µs', 7000],
    ['7μs', 7000],
    ['9ns', 9],
    ['1h2m3s4ms', 3723.004e9],
    ['', undefined],
    ['-', undefined],
    ['s', undefined],
    ['.s', undefined],
    ['5', undefined],
    ['5 s', undefined],
    ['5S', undefined],
    ['1d', undefined],
    ['3000000h', undefined],
  ])('%j is %p ns', (text, ns) => {
    const got = parseGoDuration(text);
    if (ns === undefined) expect(got).toBeUndefined();
    else expect(got).toBeCloseTo(ns, 0);
  });
});
