import { describe, expect, it, jest } from '@jest/globals';
import { newStatus } from '../../kernel/errors/errors.ts';
import { ACCEPTED, useCliFixture, vmPath, vmiPath } from '../testing/cli-fixture.ts';
import { on } from '../testing/fake-api.ts';

jest.setTimeout(30_000);

const f = useCliFixture();

describe('virtctl-ts addvolume, removevolume', () => {
  const pvc = on('GET', '/api/v1/namespaces/default/persistentvolumeclaims/data', {
    status: 200,
    body: { kind: 'PersistentVolumeClaim' },
  });

  it('adds a PVC to the VMI when there is no VM', async () => {
    f.api.routes.push(pvc, on('PUT', vmiPath('default', 'vm1', 'addvolume'), ACCEPTED));
    const r = await f.cli(
      'addvolume',
      'vm1',
      '--volume-name',
      'data',
      '--serial',
      's1',
      '--cache',
      'writeback',
    );
    expect(r).toEqual({
      code: 0,
      stdout: 'Successfully submitted add volume request to VM vm1 for volume data\n',
      stderr: '',
    });
    const body = JSON.stringify({
      name: 'data',
      disk: { name: '', disk: { bus: 'scsi' }, serial: 's1', cache: 'writeback' },
      volumeSource: { persistentVolumeClaim: { claimName: 'data', hotpluggable: true } },
    });
    expect(f.sent()).toEqual([
      { method: 'GET', path: '/apis/cdi.kubevirt.io/v1beta1/namespaces/default/datavolumes/data', body: '' },
      { method: 'GET', path: '/api/v1/namespaces/default/persistentvolumeclaims/data', body: '' },
      { method: 'PUT', path: vmPath('default', 'vm1', 'addvolume'), body },
      { method: 'PUT', path: vmiPath('default', 'vm1', 'addvolume'), body },
    ]);
  });

  it('adds a DataVolume to the VM, again past a concurrent change', async () => {
    let calls = 0;
    f.api.routes.push(
      on('GET', '/apis/cdi.kubevirt.io/v1beta1/namespaces/default/datavolumes/data', {
        status: 200,
        body: {},
      }),
      on('PUT', vmPath('default', 'vm1', 'addvolume'), () =>
        calls++ === 0
          ? {
              status: 409,
              body: newStatus(409, 'jsonpatch test operation does not apply: doc is missing path'),
            }
          : ACCEPTED,
      ),
    );
    const r = await f.cli(
      'addvolume',
      'vm1',
      '--volume-name=data',
      '--disk-name',
      'd',
      '--bus',
      'virtio',
      '--dry-run',
    );
    expect(r.stdout).toBe(
      'Dry Run execution\nSuccessfully submitted add volume request to VM vm1 for volume data\n',
    );
    expect(calls).toBe(2);
    expect(JSON.parse(f.api.requests[1]?.body ?? '')).toEqual({
      name: 'd',
      disk: { name: '', disk: { bus: 'virtio' }, serial: 'd' },
      volumeSource: { dataVolume: { name: 'data', hotpluggable: true } },
      dryRun: ['All'],
    });
  });

  it('says when the volume is neither a DataVolume nor a PVC', async () => {
    const r = await f.cli('addvolume', 'vm1', '--volume-name', 'data');
    expect(r.code).toBe(4);
    expect(r.stderr.split('\n')[0]).toBe(
      'error adding volume, Volume data is not a DataVolume or PersistentVolumeClaim: the server could not find the requested resource (/api/v1/namespaces/default/persistentvolumeclaims/data)',
    );
  });

  it.each([
    [['addvolume', 'vm1'], "error: required option '--volume-name <name>' not specified"],
    [
      ['addvolume', 'vm1', '--volume-name', 'd', '--bus', 'sata'],
      "Invalid bus type 'sata' for disk. Only 'scsi' and 'virtio' are supported.",
    ],
    [
      ['addvolume', 'vm1', '--volume-name', 'd', '--cache', 'unsafe'],
      "error: option '--cache <mode>' argument 'unsafe' is invalid. Allowed choices are none, writethrough, writeback.",
    ],
  ])('refuses %j with exit 3', async (args, line) => {
    const r = await f.cli(...args);
    expect(r.code).toBe(3);
    expect(r.stderr.split('\n')[0]).toBe(line);
  });

  it('removes a volume from the VM', async () => {
    f.api.routes.push(on('PUT', vmPath('default', 'vm1', 'removevolume'), ACCEPTED));
    const r = await f.cli('removevolume', 'vm1', '--volume-name', 'data', '--persist');
    expect(r).toEqual({
      code: 0,
      stdout: 'Successfully submitted remove volume request to VM vm1 for volume data\n',
      stderr: '',
    });
    expect(f.sent()).toEqual([
      { method: 'PUT', path: vmPath('default', 'vm1', 'removevolume'), body: '{"name":"data"}' },
    ]);
  });
});
