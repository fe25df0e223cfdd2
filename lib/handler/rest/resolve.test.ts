// The console and VNC streams of the node resolver, over the real REST server (mutual TLS on 127.0.0.1:0)
// and a kubelet-like pods dir: what a tenant plants in the launcher Pod's `private` emptyDir in place of the
// VMI's socket is refused with the reason, and the host socket it names never gets a connection.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { realClock } from '../../kernel/clock.ts';
import { memoryLogger } from '../../kernel/log/log.ts';
import { newRegistry } from '../../kernel/metrics/registry.ts';
import { PRIVATE_VOLUME } from '../../rpc/index.ts';
import { LauncherClients } from '../launchers/clients.ts';
import { hostTargets, podDirs, type HostTargets, type PodDirs } from '../testing/planted.ts';
import { cachedPods, launcherPodFor } from '../testing/pods.ts';
import { nodeResolver } from './resolve.ts';
import { startRestServer, type RestServer } from './server.ts';
import { openStream, StreamReader, vmiPath, type Dial } from './testing/client.ts';
import { makeRestPki, type RestPki } from './testing/pki.ts';

const NODE = 'node1';
const UID = 'u1';
const vmi = {
  apiVersion: 'kubevirt.io/v1',
  kind: 'VirtualMachineInstance',
  metadata: { namespace: 'ns', name: 'vm', uid: UID },
  spec: { domain: { devices: {} } },
  status: { nodeName: NODE, activePods: { p1: NODE } },
} as VirtualMachineInstance;

let pki: RestPki;
let pods: PodDirs;
let host: HostTargets;
let server: RestServer;
let logged: ReturnType<typeof memoryLogger>;
let guest: Server;

const vmiDir = (): string => join(pods.volume(PRIVATE_VOLUME), UID);
const dial = (): Dial => ({ port: server.port, ca: pki.ca.cert, client: pki.client });

beforeAll(async () => {
  pki = await makeRestPki();
}, 30_000);

beforeEach(async () => {
  pods = await podDirs('p1', [PRIVATE_VOLUME]);
  host = await hostTargets();
  await mkdir(vmiDir());
  // The guest's serial console: answers what it is sent.
  guest = createServer((s) => {
    s.on('error', () => undefined);
    s.write('guest serial\n');
  });
  await new Promise<void>((resolve) => guest.listen(join(vmiDir(), 'virt-serial0'), resolve));
  logged = memoryLogger('virt-handler');
  const launchers = new LauncherClients({
    node: NODE,
    kubeletPodsDir: pods.podsDir,
    pods: cachedPods(launcherPodFor(vmi, 'p1', NODE)),
    clock: realClock,
    log: logged.log,
  });
  server = await startRestServer({
    port: 0,
    host: '127.0.0.1',
    tls: { ca: pki.ca.cert, cert: pki.server.cert, key: pki.server.key },
    resolver: nodeResolver({ vmis: { get: (k) => (k === 'ns/vm' ? vmi : undefined) }, launchers }),
    log: logged.log,
    registry: newRegistry({ defaultMetrics: false }),
  });
});

afterEach(async () => {
  await server.close();
  await new Promise<void>((resolve) =>
    guest.close(() => {
      resolve();
    }),
  );
  await host.cleanup();
  await pods.cleanup();
});

describe('the console streams of the node resolver', () => {
  it('streams from the VMI own socket', async () => {
    const r = new StreamReader(await openStream(dial(), vmiPath('ns', 'vm', 'console')));
    expect(await r.waitFor('guest serial', 5_000)).toContain('guest serial');
    r.ws.close(1000);
    await r.closed;
  });

  it.each([
    ['console', 'virt-serial0'],
    ['vnc', 'virt-vnc'],
  ])(
    'refuses a symlink planted at the %s socket to a host socket, which never gets a connection',
    async (route, name) => {
      const at = join(vmiDir(), name);
      await rm(at, { force: true });
      await symlink(host.socket, at);
      await expect(openStream(dial(), vmiPath('ns', 'vm', route))).rejects.toMatchObject({
        status: 400,
        text: `refused unix socket ${at}: ${at} is a symbolic link`,
      });
      expect(host.connections).toBe(0);
      expect(logged.lines.find((l) => l['msg'] === 'console socket refused')).toMatchObject({
        level: 'warning',
        kind: route,
        path: at,
        reason: `KV_ERR_UNSAFE_PATH: ${at} is a symbolic link`,
      });
    },
  );

  it('refuses a symlinked VMI directory, and a file that is no socket', async () => {
    await rename(vmiDir(), `${vmiDir()}.real`);
    await symlink(`${vmiDir()}.real`, vmiDir());
    await expect(openStream(dial(), vmiPath('ns', 'vm', 'console'))).rejects.toMatchObject({
      status: 400,
      text: `refused unix socket ${join(vmiDir(), 'virt-serial0')}: ${vmiDir()} is a symbolic link`,
    });
    await rm(vmiDir());
    await mkdir(vmiDir());
    await writeFile(join(vmiDir(), 'virt-vnc'), 'not a socket');
    await expect(openStream(dial(), vmiPath('ns', 'vm', 'vnc'))).rejects.toMatchObject({
      status: 400,
      text: expect.stringContaining(`${join(vmiDir(), 'virt-vnc')} is a regular file, not a unix socket`),
    });
    // Nothing there: KubeVirt's stat answer.
    await expect(openStream(dial(), vmiPath('ns', 'vm', 'console'))).rejects.toMatchObject({
      status: 400,
      text: `stat ${join(vmiDir(), 'virt-serial0')}: no such file or directory`,
    });
  });
});
