import { describe, expect, it } from '@jest/globals';
import {
  HANDLER_SUBRESOURCE_METHODS,
  isHandlerSubresource,
  isHandlerSubresourceOf,
} from './handler-subresources.ts';

describe('the handler subresources', () => {
  it('are PUT for the commands and GET for the queries and streams', () => {
    expect(HANDLER_SUBRESOURCE_METHODS).toEqual({
      pause: 'PUT',
      unpause: 'PUT',
      freeze: 'PUT',
      unfreeze: 'PUT',
      softreboot: 'PUT',
      reset: 'PUT',
      guestosinfo: 'GET',
      userlist: 'GET',
      filesystemlist: 'GET',
      console: 'GET',
      vnc: 'GET',
      portforward: 'GET',
    });
  });

  it.each([
    ['pause', true],
    ['vnc', true],
    ['addvolume', false],
    ['vnc/screenshot', false],
    ['toString', false],
    ['__proto__', false],
  ])('%s is one: %s', (s, want) => {
    expect(isHandlerSubresource(s)).toBe(want);
  });

  it.each([
    ['reset', 'command', true],
    ['reset', 'query', false],
    ['userlist', 'query', true],
    ['console', 'stream', true],
    ['console', 'command', false],
    ['hasOwnProperty', 'command', false],
  ] as const)('%s is a %s: %s', (s, kind, want) => {
    expect(isHandlerSubresourceOf(s, kind)).toBe(want);
  });
});
