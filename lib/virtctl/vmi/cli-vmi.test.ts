import { describe, expect, it, jest } from '@jest/globals';
import { newStatus } from '../../kernel/errors/errors.ts';
import { ACCEPTED, useCliFixture, vmiPath } from '../testing/cli-fixture.ts';
import { on } from '../testing/fake-api.ts';

jest.setTimeout(30_000);

const f = useCliFixture();

describe('virtctl-ts VMI commands', () => {
  it.each<[string[], string, string, string]>([
    [
      ['freeze', 'v'],
      vmiPath('default', 'v', 'freeze'),
      '{"unfreezeTimeout":"5m0s"}',
      'VMI v was scheduled to freeze\n',
    ],
    [
      ['freeze', 'v', '--unfreeze-timeout', '90s'],
      vmiPath('default', 'v', 'freeze'),
      '{"unfreezeTimeout":"1m30s"}',
      'VMI v was scheduled to freeze\n',
    ],
    [['unfreeze', 'v'], vmiPath('default', 'v', 'unfreeze'), '', 'VMI v was scheduled to unfreeze\n'],
    [['soft-reboot', 'v'], vmiPath('default', 'v', 'softreboot'), '', 'VMI v was scheduled to soft-reboot\n'],
    [['softreboot', 'v'], vmiPath('default', 'v', 'softreboot'), '', 'VMI v was scheduled to soft-reboot\n'],
    [['pause', 'vmi', 'v'], vmiPath('default', 'v', 'pause'), '{}', 'VMI v was scheduled to pause\n'],
    [
      ['unpause', 'VMI', 'v', '--dry-run'],
      vmiPath('default', 'v', 'unpause'),
      '{"dryRun":["All"]}',
      'Dry Run execution\nVMI v was scheduled to unpause\n',
    ],
  ])('%j PUTs %s', async (args, path, body, stdout) => {
    f.api.routes.push(on('PUT', path, ACCEPTED));
    expect(await f.cli(...args)).toEqual({ code: 0, stdout, stderr: '' });
    expect(f.sent()).toEqual([{ method: 'PUT', path, body }]);
  });

  it('pause vm reads the VM (kubevirt.io served) first', async () => {
    f.api.routes.push(
      on('GET', '/apis/kubevirt.io/v1', { status: 200, body: {} }),
      on('GET', '/apis/kubevirt.io/v1/namespaces/default/virtualmachines/v', {
        status: 200,
        body: {
          apiVersion: 'kubevirt.io/v1',
          kind: 'VirtualMachine',
          metadata: { name: 'v' },
          spec: { runStrategy: 'Always' },
        },
      }),
      on('PUT', vmiPath('default', 'v', 'pause'), ACCEPTED),
    );
    expect((await f.cli('pause', 'vm', 'v')).stdout).toBe('VMI v was scheduled to pause\n');
    expect(f.sent().map((x) => x.path)).toEqual([
      '/apis/kubevirt.io/v1',
      '/apis/kubevirt.io/v1/namespaces/default/virtualmachines/v',
      vmiPath('default', 'v', 'pause'),
    ]);
  });

  it('pause vm reads the VM under the internal names when kubevirt.io is not served', async () => {
    const internal =
      '/apis/internal.virtualization.deckhouse.io/v1/namespaces/default/internalvirtualizationvirtualmachines/v';
    f.api.routes.push(
      on('GET', internal, {
        status: 200,
        body: {
          apiVersion: 'internal.virtualization.deckhouse.io/v1',
          kind: 'InternalVirtualizationVirtualMachine',
          metadata: { name: 'v', namespace: 'default' },
          spec: { runStrategy: 'Halted' },
        },
      }),
    );
    const r = await f.cli('pause', 'vm', 'v');
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Error pausing VirtualMachineInstance v. VirtualMachine v is not set to run\n',
    });
    expect(f.sent().map((x) => x.path)).toEqual(['/apis/kubevirt.io/v1', internal]);
  });

  it('pause vm of a missing VM exits 4', async () => {
    f.api.routes.push(on('GET', '/apis/kubevirt.io/v1', { status: 200, body: {} }));
    const r = await f.cli('pause', 'vm', 'v', '-n', 'x');
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(
      'VirtualMachine v was not found in namespace x: check the name, or pass -n/--namespace <namespace>',
    );
  });

  it('refuses another resource type with exit 3', async () => {
    expect((await f.cli('pause', 'pod', 'v')).code).toBe(3);
  });

  it.each([
    ['guestosinfo', 'guestosinfo', { guestAgentVersion: '5.2', os: { name: 'Debian' } }],
    ['userlist', 'userlist', { items: [{ userName: 'root' }] }],
    ['fslist', 'filesystemlist', { items: [] }],
  ])('%s prints the JSON of GET .../%s', async (cmd, sub, body) => {
    f.api.routes.push(on('GET', vmiPath('default', 'v', sub), { status: 200, body }));
    expect(await f.cli(cmd, 'v')).toEqual({
      code: 0,
      stdout: `${JSON.stringify(body, null, 2)}\n`,
      stderr: '',
    });
  });

  it('says to start a VMI that is not running', async () => {
    f.api.routes.push(
      on('GET', vmiPath('default', 'v', 'guestosinfo'), {
        status: 409,
        body: newStatus(409, 'VMI is not running'),
      }),
    );
    expect(await f.cli('guestosinfo', 'v')).toEqual({
      code: 5,
      stdout: '',
      stderr:
        'Error getting guestosinfo of VirtualMachineInstance v: VMI is not running\nVirtualMachineInstance v in namespace default is not running: start it first (virtctl-ts start v -n default)\n',
    });
  });
});
