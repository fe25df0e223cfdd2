import { describe, expect, it } from '@jest/globals';
import { upstreamFailureStatus } from './http.ts';

const withCode = (message: string, code: string): Error => Object.assign(new Error(message), { code });

describe('upstreamFailureStatus', () => {
  it.each<[string, Error, number, string]>([
    [
      'an unreachable server',
      withCode('connect ECONNREFUSED 127.0.0.1:1', 'ECONNREFUSED'),
      503,
      'the API server https://api:6443 is unavailable: ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:1',
    ],
    [
      'a failed exchange',
      withCode('other side closed', 'UND_ERR_SOCKET'),
      502,
      'the API server https://api:6443 failed to answer: UND_ERR_SOCKET: other side closed',
    ],
    [
      'an error that quotes a bearer token',
      new Error('request had Authorization: Bearer kv-secret-77'),
      502,
      'the API server https://api:6443 failed to answer: request had Authorization: Bearer [redacted]',
    ],
  ])('answers %s with a Status that quotes no credential', (_name, err, code, message) => {
    expect(upstreamFailureStatus(err, 'https://api:6443')).toMatchObject({ kind: 'Status', code, message });
  });
});
