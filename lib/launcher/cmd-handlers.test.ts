import { describe, expect, it } from '@jest/globals';
import { nopLogger } from '../kernel/log/log.ts';
import {
  cmdHandlers,
  decodeVmi,
  exclusive,
  guestListHandlers,
  isMigrationTargetPod,
  probeHandlers,
  type HandlerDeps,
  type DomainCommands,
  type GuestCommands,
} from './cmd-handlers.ts';

describe('decodeVmi', () => {
  it('parses the VMI JSON of a request', () => {
    const vmi = { metadata: { name: 'a' }, spec: { domain: { devices: {} } } };
    expect(decodeVmi(Buffer.from(JSON.stringify(vmi)))).toEqual(vmi);
  });

  it.each([
    ['no bytes', undefined, 'carries no VMI'],
    ['empty bytes', Buffer.alloc(0), 'carries no VMI'],
    ['broken JSON', Buffer.from('{'), 'not valid JSON'],
    ['no spec', Buffer.from('{"metadata":{}}'), 'spec: required value'],
    ['null', Buffer.from('null'), 'the VMI: expected an object, got null'],
    [
      'disks as a string',
      Buffer.from('{"metadata":{},"spec":{"domain":{"devices":{"disks":"root"}}}}'),
      'spec.domain.devices.disks: expected an array, got a string',
    ],
    [
      'a null disk and a bad quantity',
      Buffer.from('{"metadata":{},"spec":{"domain":{"memory":{"guest":"lots"},"devices":{"disks":[null]}}}}'),
      'spec.domain.memory.guest: quantity "lots" is not a valid resource quantity; ' +
        'spec.domain.devices.disks[0]: expected an object, got null',
    ],
  ])('rejects %s', (_what, bytes, msg) => {
    expect(() => decodeVmi(bytes)).toThrow(msg);
  });

  it('drops nulls from objects as the API server does, keeping the rest', () => {
    const vmi = { metadata: { name: 'a' }, spec: { domain: { cpu: null, devices: { disks: null } } } };
    expect(decodeVmi(Buffer.from(JSON.stringify(vmi)))).toEqual({
      metadata: { name: 'a' },
      spec: { domain: { devices: {} } },
    });
  });
});

describe('a VMI command with a malformed VMI', () => {
  const signal = new AbortController().signal;

  it('answers in-band with the field path and never reaches the manager', async () => {
    const calls: string[] = [];
    const unused = (): never => {
      throw new Error('not used by a sync');
    };
    const manager: DomainCommands = {
      sync: (): Promise<void> => {
        calls.push('sync');
        return Promise.resolve();
      },
      shutdown: unused,
      kill: unused,
      delete: unused,
      pause: unused,
      unpause: unused,
      softReboot: unused,
      reset: unused,
      domainJson: unused,
      get conn(): never {
        return unused();
      },
      appliedChecksum: '',
      require: unused,
      checkIdentity: (): void => undefined,
    };
    const h = cmdHandlers({ manager, guest: {} as GuestCommands, log: nopLogger });
    const vmi = { metadata: { name: 'a' }, spec: { domain: { cpu: { cores: 'four' }, devices: {} } } };
    const req = { vmi: { vmiJson: Buffer.from(JSON.stringify(vmi)) }, options: undefined };
    const r = await h.syncVirtualMachine?.(req, signal);
    expect(r).toEqual({
      success: false,
      message: 'SyncVirtualMachine failed: spec.domain.cpu.cores: expected an integer, got the string "four"',
    });
    expect(calls).toEqual([]);
  });
});

describe('exclusive', () => {
  it('runs one command at a time, in order, and goes on after a failure', async () => {
    const one = exclusive();
    const log: string[] = [];
    let release: () => void = () => undefined;
    const first = one(
      () =>
        new Promise<void>((resolve) => {
          log.push('first started');
          release = () => {
            log.push('first done');
            resolve();
          };
        }),
    );
    const failing = one(() => {
      log.push('second started');
      return Promise.reject(new Error('boom'));
    });
    const third = one(() => {
      log.push('third started');
      return Promise.resolve(3);
    });
    await Promise.resolve();
    expect(log).toEqual(['first started']);
    release();
    await first;
    await expect(failing).rejects.toThrow('boom');
    expect(await third).toBe(3);
    expect(log).toEqual(['first started', 'first done', 'second started', 'third started']);
  });
});

describe('GetUsers and GetFilesystems', () => {
  const signal = new AbortController().signal;

  it('answers the lists as KubeVirt JSON', async () => {
    const h = guestListHandlers(
      {
        users: () => Promise.resolve([{ userName: 'root', loginTime: 1.5 }]),
        filesystems: () =>
          Promise.resolve([
            { diskName: 'vda', mountPoint: '/mnt/data', fileSystemType: 'ext4', usedBytes: 1, totalBytes: 2 },
          ]),
      },
      nopLogger,
    );
    const users = await h.getUsers({}, signal);
    expect(users.response).toEqual({ success: true, message: '' });
    expect(JSON.parse(users.guestUserListResponse)).toEqual([{ userName: 'root', loginTime: 1.5 }]);
    const fs = await h.getFilesystems({}, signal);
    expect(JSON.parse(fs.guestFilesystemsResponse)).toEqual([
      { diskName: 'vda', mountPoint: '/mnt/data', fileSystemType: 'ext4', usedBytes: 1, totalBytes: 2 },
    ]);
  });

  it('answers an empty list as [] and a failure in-band', async () => {
    const h = guestListHandlers(
      { users: () => Promise.resolve([]), filesystems: () => Promise.reject(new Error('boom')) },
      nopLogger,
    );
    expect((await h.getUsers({}, signal)).guestUserListResponse).toBe('[]');
    expect(await h.getFilesystems({}, signal)).toEqual({
      response: { success: false, message: 'GetFilesystems failed: boom' },
      guestFilesystemsResponse: '',
    });
  });
});

describe('GuestPing and Exec', () => {
  const signal = new AbortController().signal;

  it('pings with the domain and timeout of the request, and fails as a thrown error', async () => {
    const pinged: [string, number][] = [];
    let agentUp = true;
    const h = probeHandlers(
      {
        ping: (name, timeout) => {
          pinged.push([name, timeout]);
          return agentUp ? Promise.resolve() : Promise.reject(new Error('QEMU guest agent is not connected'));
        },
        exec: () => Promise.reject(new Error('not used')),
      },
      nopLogger,
    );
    const req = { domainName: 'ns_vm', timeoutSeconds: 4 };
    expect(await h.guestPing(req, signal)).toEqual({ response: { success: true, message: '' } });
    agentUp = false;
    await expect(h.guestPing(req, signal)).rejects.toThrow('QEMU guest agent is not connected');
    expect(pinged).toEqual([
      ['ns_vm', 4],
      ['ns_vm', 4],
    ]);
  });

  it('answers a command that ran with its exit code and stdout, and a failure as a thrown error', async () => {
    const seen: unknown[] = [];
    const h = probeHandlers(
      {
        ping: () => Promise.reject(new Error('not used')),
        exec: (req, s) => {
          seen.push(req, s);
          return req.command === 'missing'
            ? Promise.reject(new Error('Failed to execute child process'))
            : Promise.resolve({ exitCode: 2, stdOut: 'nope\n' });
        },
      },
      nopLogger,
    );
    const req = { domainName: 'ns_vm', Command: '/bin/check', Args: ['-q'], timeoutSeconds: 3 };
    expect(await h.exec(req, signal)).toEqual({
      response: { success: true, message: '' },
      exitCode: 2,
      stdOut: 'nope\n',
    });
    expect(seen).toEqual([
      { domainName: 'ns_vm', command: '/bin/check', args: ['-q'], timeoutSeconds: 3 },
      signal,
    ]);
    await expect(h.exec({ ...req, Command: 'missing' }, signal)).rejects.toThrow(
      'Failed to execute child process',
    );
  });
});

describe('migration RPCs', () => {
  const signal = new AbortController().signal;
  const vmi = {
    metadata: { name: 'a', namespace: 'default', uid: 'u1' },
    spec: { domain: { devices: {} } },
    status: { migrationState: { migrationUid: 'm1', targetPod: 'virt-launcher-a-dst' } },
  };
  const vmiJson = Buffer.from(JSON.stringify(vmi));

  function handlers(o: { podName?: string } = {}): { h: ReturnType<typeof cmdHandlers>; calls: unknown[][] } {
    const calls: unknown[][] = [];
    const record =
      (name: string) =>
      (...args: unknown[]): Promise<void> => {
        calls.push([name, ...args]);
        return Promise.resolve();
      };
    const deps: HandlerDeps = {
      manager: {} as DomainCommands,
      guest: {} as GuestCommands,
      log: nopLogger,
      migration: {
        migrate: record('migrate'),
        cancelMigration: (...args: unknown[]): void => {
          calls.push(['cancel', ...args]);
        },
        prepareMigrationTarget: record('prepare'),
        finalizeMigrationTarget: record('finalize'),
      },
      podName: o.podName,
      requestExit: (): void => {
        calls.push(['exit']);
      },
    };
    return { h: cmdHandlers(deps), calls };
  }

  it('starts a migration with the parsed options', async () => {
    const { h, calls } = handlers();
    const options = Buffer.from(JSON.stringify({ Bandwidth: '64Mi', ProgressTimeout: 150 }));
    const r = await h.migrateVirtualMachine?.({ vmi: { vmiJson }, options }, signal);
    expect(r).toEqual({ success: true, message: '' });
    expect(calls).toEqual([
      [
        'migrate',
        vmi,
        expect.objectContaining({
          bandwidthMiB: 64,
          progressTimeoutSeconds: 150,
          completionTimeoutPerGiBSeconds: 0,
        }),
      ],
    ]);
  });

  it('refuses bad options in-band, naming the field, and never migrates', async () => {
    const { h, calls } = handlers();
    const options = Buffer.from(JSON.stringify({ AllowPostCopy: 'yes' }));
    const r = await h.migrateVirtualMachine?.({ vmi: { vmiJson }, options }, signal);
    expect(r).toEqual({
      success: false,
      message: 'MigrateVirtualMachine failed: migration options: AllowPostCopy must be true or false',
    });
    expect(calls).toEqual([]);
  });

  it.each<[string, string | undefined, boolean]>([
    ['the target Pod', 'virt-launcher-a-dst', true],
    ['another Pod', 'virt-launcher-a-src', false],
    ['no Pod name', undefined, false],
  ])('SignalTargetPodCleanup in %s ends the launcher: %s', async (_n, podName, exits) => {
    const { h, calls } = handlers(podName === undefined ? {} : { podName });
    const r = await h.signalTargetPodCleanup?.({ vmi: { vmiJson }, options: undefined }, signal);
    expect(r?.success).toBe(true);
    expect(calls).toEqual(exits ? [['exit']] : []);
    expect(isMigrationTargetPod(decodeVmi(vmiJson), podName)).toBe(exits);
  });

  it('routes target preparation, finalization and cancel to the manager', async () => {
    const { h, calls } = handlers();
    await h.syncMigrationTarget?.({ vmi: { vmiJson }, options: undefined }, signal);
    await h.finalizeVirtualMachineMigration?.({ vmi: { vmiJson }, options: undefined }, signal);
    await h.cancelVirtualMachineMigration?.({ vmi: { vmiJson }, options: undefined }, signal);
    expect(calls.map((c) => c[0])).toEqual(['prepare', 'finalize', 'cancel']);
  });
});
