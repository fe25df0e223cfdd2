import { describe, expect, it } from '@jest/globals';
import { MIGRATE } from './constants.ts';
import type { LibvirtConnection } from './connection.ts';
import {
  abortJob,
  getJobStats,
  migrateParams,
  setMigrateMaxDowntime,
  setMigrateMaxSpeed,
  startPostCopy,
} from './migration.ts';
import { PROC } from './procedures.ts';
import { toWireParam } from './typed-params.ts';
import * as x from './xdr.ts';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const wire = (s: string): string => s.replace(/\s/g, '');
const dom = { name: 'vm', uuid: new Uint8Array(16).fill(0xab), id: 3 };
const DOM = `00000002 766d0000 ${'ab'.repeat(16)} 00000003`;

describe('migration procedures', () => {
  it.each([
    ['DOMAIN_ABORT_JOB', PROC.domainAbortJob.procedure, 164],
    ['DOMAIN_MIGRATE_SET_MAX_DOWNTIME', PROC.domainMigrateSetMaxDowntime.procedure, 166],
    ['DOMAIN_MIGRATE_SET_MAX_SPEED', PROC.domainMigrateSetMaxSpeed.procedure, 207],
    ['DOMAIN_GET_JOB_STATS', PROC.domainGetJobStats.procedure, 298],
    ['DOMAIN_MIGRATE_PERFORM3_PARAMS', PROC.domainMigratePerform3Params.procedure, 305],
    ['DOMAIN_MIGRATE_START_POST_COPY', PROC.domainMigrateStartPostCopy.procedure, 364],
  ])('%s is procedure %d of remote_protocol.x', (_name, got, want) => {
    expect(got).toBe(want);
  });

  it('encodes PERFORM3_PARAMS: domain, dconnuri, typed params, empty cookie, flags', () => {
    const params = migrateParams({ migrateUri: 'unix://s', bandwidthMiB: 5 }).map(toWireParam);
    const bytes = x.encode(PROC.domainMigratePerform3Params.args, {
      dom,
      dconnuri: 'qemu',
      params,
      cookieIn: new Uint8Array(0),
      flags: MIGRATE.LIVE | MIGRATE.PEER2PEER,
    });
    expect(hex(bytes)).toBe(
      wire(`${DOM}
        00000001 00000004 71656d75
        00000002
          0000000b 6d696772 6174655f 75726900 00000007 00000008 756e6978 3a2f2f73
          00000009 62616e64 77696474 68000000 00000004 00000000 00000005
        00000000
        00000003`),
    );
  });

  it('encodes SET_MAX_SPEED with a 64-bit bandwidth', () => {
    const bytes = x.encode(PROC.domainMigrateSetMaxSpeed.args, { dom, bandwidth: 2n ** 40n, flags: 0 });
    expect(hex(bytes)).toBe(wire(`${DOM} 00000100 00000000 00000000`));
  });

  it('decodes a GET_JOB_STATS reply: the job type and its typed fields', () => {
    const reply = Buffer.from(
      wire(`00000002 00000002
        0000000e 64617461 5f72656d 61696e69 6e670000 00000004 00000000 00100000
        00000010 6d656d6f 72795f69 74657261 74696f6e 00000004 00000000 00000003`),
      'hex',
    );
    const r = x.decode(PROC.domainGetJobStats.ret, reply);
    expect(r.type).toBe(2);
    expect(r.params.map((p) => [p.field, p.value.tag, p.value.value])).toEqual([
      ['data_remaining', 4, 1048576n],
      ['memory_iteration', 4, 3n],
    ]);
  });
});

describe('migrateParams', () => {
  it.each<{ name: string; in: Parameters<typeof migrateParams>[0]; fields: [string, string][] }>([
    { name: 'nothing', in: {}, fields: [] },
    { name: 'unlimited bandwidth is left out', in: { bandwidthMiB: 0 }, fields: [] },
    {
      name: 'everything, in libvirt order',
      in: {
        migrateUri: 'unix:///m',
        destXml: '<d/>',
        persistXml: '<p/>',
        destName: 'ns_vm',
        bandwidthMiB: 64,
        parallelConnections: 4,
        migrateDisks: ['vda'],
        disksUri: 'unix:///b',
      },
      fields: [
        ['migrate_uri', 'string'],
        ['destination_xml', 'string'],
        ['persistent_xml', 'string'],
        ['destination_name', 'string'],
        ['bandwidth', 'ullong'],
        ['parallel.connections', 'int'],
        ['migrate_disks', 'string'],
        ['disks_uri', 'string'],
      ],
    },
    { name: 'no disks to copy: no migrate_disks', in: { migrateDisks: [] }, fields: [] },
  ])('$name', (c) => {
    expect(migrateParams(c.in).map((p) => [p.field, p.type])).toEqual(c.fields);
  });

  it('repeats migrate_disks once per disk, in order, beside disks_uri', () => {
    const params = migrateParams({ migrateDisks: ['vda', 'sdb'], disksUri: 'unix:///s/b.sock' });
    expect(params.map((p) => [p.field, p.value])).toEqual([
      ['migrate_disks', 'vda'],
      ['migrate_disks', 'sdb'],
      ['disks_uri', 'unix:///s/b.sock'],
    ]);
  });

  it('encodes repeated migrate_disks as separate typed string parameters on the wire', () => {
    const bytes = x.encode(PROC.domainMigratePerform3Params.args, {
      dom,
      dconnuri: null,
      params: migrateParams({ migrateDisks: ['vda', 'vdb'] }).map(toWireParam),
      cookieIn: new Uint8Array(0),
      flags: MIGRATE.NON_SHARED_INC,
    });
    expect(hex(bytes)).toBe(
      wire(`${DOM}
        00000000
        00000002
          0000000d 6d696772 6174655f 6469736b 73000000 00000007 00000003 76646100
          0000000d 6d696772 6174655f 6469736b 73000000 00000007 00000003 76646200
        00000000
        ${MIGRATE.NON_SHARED_INC.toString(16).padStart(8, '0')}`),
    );
  });
});

describe('migration calls', () => {
  const ref = { name: 'vm', uuid: 'abababab-abab-abab-abab-abababababab', id: 3 };
  const recording = (): { conn: LibvirtConnection; calls: [string, unknown][] } => {
    const calls: [string, unknown][] = [];
    const conn = {
      call: (proc: { name: string }, args: unknown): Promise<unknown> => {
        calls.push([proc.name, args]);
        return Promise.resolve(proc.name.endsWith('GET_JOB_STATS') ? { type: 2, params: [] } : undefined);
      },
    } as unknown as LibvirtConnection;
    return { conn, calls };
  };

  it.each<[string, (c: LibvirtConnection) => Promise<unknown>, string, Record<string, unknown>]>([
    ['abortJob', (c) => abortJob(c, ref), 'REMOTE_PROC_DOMAIN_ABORT_JOB', {}],
    [
      'setMigrateMaxSpeed',
      (c) => setMigrateMaxSpeed(c, ref, 8),
      'REMOTE_PROC_DOMAIN_MIGRATE_SET_MAX_SPEED',
      { bandwidth: 8n, flags: 0 },
    ],
    [
      'setMigrateMaxDowntime',
      (c) => setMigrateMaxDowntime(c, ref, 300),
      'REMOTE_PROC_DOMAIN_MIGRATE_SET_MAX_DOWNTIME',
      { downtime: 300n, flags: 0 },
    ],
    [
      'startPostCopy',
      (c) => startPostCopy(c, ref),
      'REMOTE_PROC_DOMAIN_MIGRATE_START_POST_COPY',
      { flags: 0 },
    ],
  ])('%s calls its procedure with the domain', async (_n, fn, proc, rest) => {
    const { conn, calls } = recording();
    await fn(conn);
    expect(calls).toEqual([
      [proc, { dom: { name: 'vm', uuid: new Uint8Array(16).fill(0xab), id: 3 }, ...rest }],
    ]);
  });

  it('names the job type getJobStats reads', async () => {
    const { conn } = recording();
    expect(await getJobStats(conn, ref)).toEqual({ type: 'unbounded', params: {} });
  });
});
