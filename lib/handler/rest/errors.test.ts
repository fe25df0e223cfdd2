import { describe, expect, it } from '@jest/globals';
import { commandError, commandFailed, noCommandSocket, noUnixSocket, vmiNotFound } from './errors.ts';

describe('KubeVirt error texts', () => {
  it('names the VMI, the socket and the failed command as KubeVirt does', () => {
    expect(vmiNotFound('ns1', 'vm1')).toEqual({ status: 404, message: 'VMI ns1/vm1 does not exist' });
    expect(noCommandSocket('u-1', 500)).toEqual({
      status: 500,
      message: 'No command socket found for vmi u-1',
    });
    expect(noUnixSocket('/x/virt-serial0')).toEqual({
      status: 400,
      message: 'stat /x/virt-serial0: no such file or directory',
    });
    expect(commandFailed('Pause', { success: false, message: 'domain "x" not running' }, 500)).toEqual({
      status: 500,
      message: 'server error. command Pause failed: "domain \\"x\\" not running"',
    });
    expect(commandError('Freeze', new Error('deadline exceeded'), 400)).toEqual({
      status: 400,
      message: 'unknown error encountered sending command Freeze: deadline exceeded',
    });
  });
});
