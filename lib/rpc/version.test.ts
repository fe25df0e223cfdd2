import { describe, expect, it } from '@jest/globals';
import { RpcVersionError } from './errors.ts';
import { highestCompatibleVersion } from './version.ts';

describe('highestCompatibleVersion', () => {
  it.each([
    [[1], [1], 1],
    [[2, 1], [1], 1],
    [[1, 3, 2], [2, 3], 3],
  ])('server %j, client %j -> %d', (server, client, want) => {
    expect(highestCompatibleVersion('svc', server, client)).toBe(want);
  });

  it.each([
    [[], [1]],
    [[2], [1]],
  ])('server %j, client %j -> RpcVersionError', (server, client) => {
    let caught: unknown;
    try {
      highestCompatibleVersion('svc', server, client);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(RpcVersionError);
    expect(caught).toMatchObject({
      code: 'KV_ERR_NOT_IMPLEMENTED',
      serverVersions: server,
      clientVersions: client,
    });
  });
});
