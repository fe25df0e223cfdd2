import { execFileSync } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { status } from '@grpc/grpc-js';
import { KvError } from '../kernel/errors/errors.ts';
import { failed, newCmdServer, ok, type CmdHandlers, type CmdServerOptions } from './cmd-server.ts';
import { newCmdClient, type CmdClientOptions, type LauncherClient, type VmiCommand } from './cmd-client.ts';
import { RpcTransportError, RpcVersionError, isUnimplemented } from './errors.ts';
import type { VMIRequest } from './gen/kubevirt/cmd/v1/cmd.ts';
import { podLayout } from './pod-layout.ts';
import { serve, tempRoot, type Serving, type TempRoot } from './testing/servers.ts';

const vmi = {
  apiVersion: 'kubevirt.io/v1',
  kind: 'VirtualMachineInstance',
  metadata: { name: 'vm1', namespace: 'ns1' },
};
const domain = {
  metadata: { name: 'ns1_vm1' },
  spec: { name: 'ns1_vm1' },
  status: { status: 'Running', reason: 'Unknown' },
};

let root: TempRoot;
let sock: string;
let serving: Serving | undefined;
let client: LauncherClient | undefined;

beforeEach(async () => {
  root = await tempRoot();
  sock = podLayout(root.dir).launcherSocket;
});
afterEach(async () => {
  client?.close();
  client = undefined;
  await serving?.stop();
  serving = undefined;
  await root.cleanup();
});

async function start(
  impl: CmdHandlers,
  opts: CmdServerOptions = {},
  clientOpts: CmdClientOptions = {},
): Promise<LauncherClient> {
  serving = await serve(newCmdServer(impl, opts), sock);
  client = await newCmdClient(sock, clientOpts);
  return client;
}

async function transportError(p: Promise<unknown>): Promise<RpcTransportError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(RpcTransportError);
    return err as RpcTransportError;
  }
  throw new Error('expected the call to fail');
}

describe('Cmd over a unix socket', () => {
  it('answers Ping', async () => {
    const c = await start({ ping: () => Promise.resolve(ok()) });
    expect(c.version).toBe(1);
    expect(await c.ping()).toEqual({ success: true, message: '' });
  });

  it('delivers the VMI JSON and options of SyncVirtualMachine and returns in-band failures', async () => {
    const seen: VMIRequest[] = [];
    const c = await start({
      syncVirtualMachine: (req) => {
        seen.push(req);
        return Promise.resolve(seen.length === 1 ? ok() : failed('spec.domain.cpu.cores: must be positive'));
      },
    });
    const options = {
      VirtualMachineSMBios: { manufacturer: 'Flant' },
      clusterConfig: { SerialConsoleLogDisabled: true },
    };
    expect(await c.syncVirtualMachine(vmi, options)).toEqual({ success: true, message: '' });
    expect(await c.syncVirtualMachine(vmi)).toEqual({
      success: false,
      message: 'spec.domain.cpu.cores: must be positive',
    });
    const first = seen[0];
    expect(JSON.parse(Buffer.from(first?.vmi?.vmiJson ?? []).toString())).toEqual(vmi);
    expect(first?.options?.VirtualMachineSMBios?.manufacturer).toBe('Flant');
    expect(first?.options?.clusterConfig?.SerialConsoleLogDisabled).toBe(true);
    expect(seen[1]?.options?.clusterConfig).toBeUndefined();
  });

  it('routes each VMI command to its own RPC', async () => {
    const calls: string[] = [];
    const record = (name: string) => (): Promise<{ success: boolean; message: string }> => {
      calls.push(name);
      return Promise.resolve(ok());
    };
    const commands: VmiCommand[] = [
      'shutdownVirtualMachine',
      'killVirtualMachine',
      'deleteVirtualMachine',
      'pauseVirtualMachine',
      'unpauseVirtualMachine',
      'softRebootVirtualMachine',
      'resetVirtualMachine',
      'unfreezeVirtualMachine',
    ];
    const notPlainVmiCommands: VmiCommand[] = [
      // @ts-expect-error FreezeVirtualMachine also needs unfreezeTimeoutSeconds
      'freezeVirtualMachine',
      // @ts-expect-error GetDomain takes no VMI
      'getDomain',
    ];
    expect(notPlainVmiCommands).toHaveLength(2);
    const impl: CmdHandlers = Object.fromEntries(commands.map((m) => [m, record(m)]));
    const c = await start(impl);
    for (const m of commands) {
      expect(await c.vmiCommand(m, vmi)).toEqual({ success: true, message: '' });
    }
    expect(calls).toEqual(commands);
  });

  it('passes unfreezeTimeoutSeconds of FreezeVirtualMachine', async () => {
    let timeout = -1;
    const c = await start({
      freezeVirtualMachine: (req) => {
        timeout = req.unfreezeTimeoutSeconds;
        return Promise.resolve(ok());
      },
    });
    expect(await c.freezeVirtualMachine(vmi, 300)).toEqual({ success: true, message: '' });
    expect(timeout).toBe(300);
  });

  it('parses the domain JSON of GetDomain and reports no domain as undefined', async () => {
    let current = JSON.stringify(domain);
    const c = await start({ getDomain: () => Promise.resolve({ response: ok(), domain: current }) });
    expect(await c.getDomain()).toEqual({ success: true, message: '', payload: domain });
    current = '';
    expect(await c.getDomain()).toEqual({ success: true, message: '', payload: undefined });
  });

  it('parses the user and filesystem lists of GetUsers and GetFilesystems', async () => {
    const users = [{ userName: 'root', domain: '', loginTime: 1700000000.5 }];
    const filesystems = [
      { diskName: 'vda', mountPoint: '/', fileSystemType: 'ext4', usedBytes: 1, totalBytes: 2 },
    ];
    let fs = JSON.stringify(filesystems);
    const c = await start({
      getUsers: () => Promise.resolve({ response: ok(), guestUserListResponse: JSON.stringify(users) }),
      getFilesystems: () => Promise.resolve({ response: failed('no agent'), guestFilesystemsResponse: fs }),
    });
    expect(await c.getUsers()).toEqual({ success: true, message: '', payload: users });
    expect(await c.getFilesystems()).toEqual({ success: false, message: 'no agent', payload: filesystems });
    fs = '';
    expect((await c.getFilesystems()).payload).toBeUndefined();
    fs = '[oops';
    await expect(c.getFilesystems()).rejects.toMatchObject({ code: 'KV_ERR_DECODE' });
  });

  it('fails with KV_ERR_DECODE on a malformed domain', async () => {
    const c = await start({ getDomain: () => Promise.resolve({ response: ok(), domain: '{not json' }) });
    await expect(c.getDomain()).rejects.toMatchObject({ code: 'KV_ERR_DECODE' });
  });

  it('carries GetQemuVersion and the fork GetAppliedVMIChecksum', async () => {
    const c = await start({
      getQemuVersion: () => Promise.resolve({ response: ok(), version: '9.2.0' }),
      getAppliedVmiChecksum: () => Promise.resolve({ response: undefined, checksum: 'ab12' }),
    });
    expect(await c.getQemuVersion()).toEqual({ success: true, message: '', version: '9.2.0' });
    expect(await c.getAppliedVmiChecksum()).toEqual({ success: true, message: '', checksum: 'ab12' });
  });

  it.each<[string, (c: LauncherClient) => Promise<unknown>]>([
    ['GetUsers', (c) => c.call('getUsers', {})],
    ['GetAppliedVMIChecksum', (c) => c.getAppliedVmiChecksum()],
    ['SyncVirtualMachine', (c) => c.syncVirtualMachine(vmi)],
  ])('answers UNIMPLEMENTED for %s when the impl leaves it out', async (rpc, invoke) => {
    const c = await start({ ping: () => Promise.resolve(ok()) });
    const err = await transportError(invoke(c));
    expect(err.code).toBe('KV_ERR_TRANSPORT');
    expect(err.grpcCode).toBe(status.UNIMPLEMENTED);
    expect(err.method).toBe(`/kubevirt.cmd.v1.Cmd/${rpc}`);
    expect(isUnimplemented(err)).toBe(true);
  });

  it('turns a handler throw into INTERNAL and a KV_ERR_NOT_IMPLEMENTED throw into UNIMPLEMENTED', async () => {
    const c = await start({
      ping: () => Promise.reject(new Error('boom')),
      getDomainStats: () => {
        throw new KvError('KV_ERR_NOT_IMPLEMENTED', 'no stats here');
      },
    });
    const internal = await transportError(c.ping());
    expect(internal.grpcCode).toBe(status.INTERNAL);
    expect(internal.message).toContain('boom');
    const unimpl = await transportError(c.getDomainStats());
    expect(unimpl.grpcCode).toBe(status.UNIMPLEMENTED);
    expect(unimpl.message).toContain('no stats here');
    // The server keeps serving after both.
    expect((await transportError(c.ping())).grpcCode).toBe(status.INTERNAL);
  });

  it('gives up at the deadline and aborts the server handler', async () => {
    let aborted: (reason: unknown) => void = () => undefined;
    const handlerAborted = new Promise<unknown>((resolve) => {
      aborted = resolve;
    });
    const c = await start(
      {
        // Never answers on its own: only the client's deadline ends the call.
        freezeVirtualMachine: (_req, signal) =>
          new Promise((_resolve, reject) => {
            signal.addEventListener('abort', () => {
              aborted(signal.reason);
              reject(signal.reason as Error);
            });
          }),
      },
      {},
      { deadlines: { veryLongMs: 150 } },
    );
    const err = await transportError(c.freezeVirtualMachine(vmi, 10));
    expect(err.grpcCode).toBe(status.DEADLINE_EXCEEDED);
    expect(await handlerAborted).toMatchObject({ code: 'KV_ERR_ABORTED' });
  });

  it('fails with UNAVAILABLE when nobody listens on the socket, and says when there is none', async () => {
    // A child binds the socket and exits without unlinking it, as a crashed launcher would.
    await mkdir(dirname(sock), { recursive: true });
    const script = `require('net').createServer().listen(process.argv[1], () => process.exit(0))`;
    execFileSync(process.execPath, ['-e', script, sock]);
    const err = await transportError(newCmdClient(sock));
    expect(err.grpcCode).toBe(status.UNAVAILABLE);
    await rm(sock);
    await expect(newCmdClient(sock)).rejects.toMatchObject({
      code: 'KV_ERR_UNSAFE_PATH',
      reason: 'not-found',
      message: `${sock} does not exist`,
    });
  });
});

describe('Cmd version negotiation', () => {
  it('picks v1 when the server also offers a newer version', async () => {
    const c = await start({ ping: () => Promise.resolve(ok()) }, { supportedVersions: [2, 1] });
    expect(c.version).toBe(1);
  });

  it('rejects a server without v1', async () => {
    serving = await serve(newCmdServer({}, { supportedVersions: [2] }), sock);
    let caught: unknown;
    try {
      await newCmdClient(sock);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(RpcVersionError);
    expect(caught).toMatchObject({
      code: 'KV_ERR_NOT_IMPLEMENTED',
      serverVersions: [2],
      clientVersions: [1],
    });
  });
});
