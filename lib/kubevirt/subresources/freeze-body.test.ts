import { describe, expect, it } from '@jest/globals';
import { FREEZE_NOT_SET, FREEZE_UNMARSHAL, parseFreezeBody } from './freeze-body.ts';

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
