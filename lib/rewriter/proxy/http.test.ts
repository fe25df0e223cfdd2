import { describe, expect, it } from '@jest/globals';
import { upstreamFailureStatus, upstreamHeaders } from './http.ts';

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

const KUBECTL =
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

describe('upstreamHeaders: Accept', () => {
  it.each<[string, string, boolean, string]>([
    ['plain JSON', 'application/json', true, 'application/json'],
    ['a JSON Table (kubectl get): kept', KUBECTL, true, KUBECTL],
    ['protobuf: JSON', 'application/vnd.kubernetes.protobuf, application/json', true, 'application/json'],
    [
      'protobuf and Tables: the JSON Tables, then JSON',
      'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1;g=meta.k8s.io,application/vnd.kubernetes.protobuf',
      true,
      'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
    ],
    [
      'a body the rewriter does not read: as sent',
      'application/vnd.kubernetes.protobuf',
      false,
      'application/vnd.kubernetes.protobuf',
    ],
  ])('%s', (_name, accept, forceJson, want) => {
    expect(upstreamHeaders({ accept, host: 'proxy' }, { forceJson })).toEqual({ accept: want });
  });
});
