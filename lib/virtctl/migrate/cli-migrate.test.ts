import { describe, expect, it, jest } from '@jest/globals';
import { newStatus } from '../../kernel/errors/errors.ts';
import { ACCEPTED, useCliFixture, vmPath } from '../testing/cli-fixture.ts';
import { on } from '../testing/fake-api.ts';

jest.setTimeout(30_000);

const f = useCliFixture();
const MIGRATIONS = '/apis/kubevirt.io/v1/namespaces/default/virtualmachineinstancemigrations';

const migration = (name: string, phase: string): unknown => ({
  apiVersion: 'kubevirt.io/v1',
  kind: 'VirtualMachineInstanceMigration',
  metadata: { name, namespace: 'default', labels: { 'kubevirt.io/vmi-name': 'vm1' } },
  spec: { vmiName: 'vm1' },
  status: { phase },
});

function migrationList(...items: unknown[]): void {
  f.api.routes.push(on('GET', '/apis/kubevirt.io/v1', { status: 200, body: { kind: 'APIResourceList' } }));
  f.api.routes.push(
    on('GET', MIGRATIONS, {
      status: 200,
      body: {
        apiVersion: 'kubevirt.io/v1',
        kind: 'VirtualMachineInstanceMigrationList',
        metadata: {},
        items,
      },
    }),
  );
}

describe('virtctl-ts migrate', () => {
  it.each<[string[], unknown, string]>([
    [['migrate', 'vm1'], {}, 'VM vm1 was scheduled to migrate\n'],
    [
      ['migrate', 'vm1', '--dry-run', '--addedNodeSelector', 'zone=a,rack=r1', '--addedNodeSelector=rack=r2'],
      { dryRun: ['All'], addedNodeSelector: { zone: 'a', rack: 'r2' } },
      'Dry Run execution\nVM vm1 was scheduled to migrate\n',
    ],
  ])('%j', async (args, body, stdout) => {
    const path = vmPath('default', 'vm1', 'migrate');
    f.api.routes.push(on('PUT', path, ACCEPTED));
    expect(await f.cli(...args)).toEqual({ code: 0, stdout, stderr: '' });
    expect(f.sent()).toEqual([{ method: 'PUT', path, body: JSON.stringify(body) }]);
  });

  it('shows the server’s refusal after virtctl’s prefix', async () => {
    const refusal = newStatus(
      409,
      'Operation cannot be fulfilled on virtualmachine.kubevirt.io "vm1": VM is not running',
    );
    f.api.routes.push(on('PUT', vmPath('default', 'vm1', 'migrate'), { status: 409, body: refusal }));
    const r = await f.cli('migrate', 'vm1');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      'Error migrating VirtualMachine: Operation cannot be fulfilled on virtualmachine.kubevirt.io "vm1": VM is not running\n',
    );
  });

  it('refuses a selector without = as a usage error before any request', async () => {
    const r = await f.cli('migrate', 'vm1', '--addedNodeSelector', 'zone');
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('zone must be formatted as key=value');
    expect(f.api.requests).toEqual([]);
  });
});

describe('virtctl-ts migrate-cancel', () => {
  it('deletes the VMI’s migration that has not ended', async () => {
    migrationList(migration('old', 'Succeeded'), migration('kubevirt-migrate-vm-x1', 'Running'));
    f.api.routes.push(on('DELETE', `${MIGRATIONS}/kubevirt-migrate-vm-x1`, { status: 200, body: {} }));
    expect(await f.cli('migrate-cancel', 'vm1')).toEqual({
      code: 0,
      stdout: 'VM vm1 was scheduled to migrate-cancel\n',
      stderr: '',
    });
    const list = f.api.requests.find((r) => r.path.startsWith(MIGRATIONS) && r.method === 'GET');
    expect(decodeURIComponent(list?.path ?? '')).toContain('labelSelector=kubevirt.io/vmi-name==vm1');
    expect(f.api.requests.filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual([
      `${MIGRATIONS}/kubevirt-migrate-vm-x1`,
    ]);
  });

  it('fails when every migration has ended', async () => {
    migrationList(migration('old', 'Failed'));
    expect(await f.cli('migrate-cancel', 'vm1')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Found no migration to cancel for vm1\n',
    });
    expect(f.api.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
  });

  it('names the migration when its delete fails', async () => {
    migrationList(migration('m1', 'Scheduling'));
    f.api.routes.push(
      on('DELETE', `${MIGRATIONS}/m1`, { status: 500, body: newStatus(500, 'etcd is down') }),
    );
    const r = await f.cli('migrate-cancel', 'vm1');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('Error canceling migration m1 of a VirtualMachine vm1: etcd is down');
  });
});
