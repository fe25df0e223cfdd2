// The contract between the handler's REST server (lib/handler/rest) and the launcher, end to end without
// a cluster. It lives here, not beside the server, because a handler test may not import the launcher's harness.
// A real launcher (child process, its own libvirt, the agent test guest with qemu-ga and a shell on ttyS0), the
// real node resolver over a kubelet-like pods dir whose Pod emptyDirs point into the launcher's root, the shared
// LauncherClients, and clients with certificates from the test CA (and from another one) over mutual TLS.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { VirtualMachineInstance } from '../../lib/kubevirt/index.ts';
import { realClock } from '../../lib/kernel/clock.ts';
import { MemoryRecorder } from '../../lib/kernel/controller/events.ts';
import { nopLogger } from '../../lib/kernel/log/log.ts';
import { newRegistry } from '../../lib/kernel/metrics/registry.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import { ensureGuests, GUEST_CMDLINE, MARKER, type Guests } from '../../testenv/guests/guests.ts';
import { ensureKvmDeviceAccess } from '../../lib/libvirt/daemon/kvm-device.ts';
import { kernelBootVmi, startLauncher, type LauncherProcess } from '../../lib/launcher/testing/harness.ts';
import { LauncherClients } from '../../lib/handler/launchers/clients.ts';
import { cachedPods, launcherPodFor } from '../../lib/handler/testing/pods.ts';
import { nodeResolver } from '../../lib/handler/rest/resolve.ts';
import { startRestServer, type RestServer } from '../../lib/handler/rest/server.ts';
import { call, openStream, StreamReader, vmiPath, type Dial } from '../../lib/handler/rest/testing/client.ts';
import { makeRestPki, type RestPki } from '../../lib/handler/rest/testing/pki.ts';

const UID = 'c0a50e1e-5e7e-4c0a-9d1e-0123456789ab';
const POD_UID = 'd1b2c3d4-0000-4000-8000-00000000c0de';
const NODE = 'node1';
const NAME = 'console';
const BOOT_MS = 120_000;

let guests: Guests;
let pki: RestPki;
let launcher: LauncherProcess | undefined;
let clients: LauncherClients | undefined;
let server: RestServer | undefined;
let podsDir: string | undefined;
let vmi: VirtualMachineInstance;
const recorder = new MemoryRecorder();

/** The launcher Pod's `sockets` and `private` emptyDirs as a kubelet would hold them, pointing into its root. */
function podsDirFor(l: LauncherProcess): string {
  const dir = mkdtempSync('/tmp/kvc-pods-');
  const volumes = join(dir, POD_UID, 'volumes/kubernetes.io~empty-dir');
  mkdirSync(volumes, { recursive: true });
  symlinkSync(l.paths.socketsDir, join(volumes, 'sockets'));
  symlinkSync(l.paths.privateDir, join(volumes, 'private'));
  return dir;
}

const dial = (client: RestPki['client'] | 'none' = pki.client): Dial => ({
  port: server?.port ?? 0,
  ca: pki.ca.cert,
  client: client === 'none' ? undefined : client,
});
const path = (sub: string): string => vmiPath('default', NAME, sub);
const domainStatus = async (): Promise<string> =>
  ((await running().client.getDomain()).payload as { Status: { Status: string } }).Status.Status;
/** GET guestosinfo; under TCG on a loaded machine the agent may miss the call's 5 s deadline: try again. */
async function guestInfo(): Promise<Record<string, unknown>> {
  let last = '';
  return waitFor(
    async () => {
      const r = await call(dial(), 'GET', path('guestosinfo'));
      last = `${r.status} ${r.text}`;
      return r.status === 200 && (JSON.parse(r.text) as Record<string, unknown>);
    },
    () => `GET guestosinfo answering 200 (last: ${last})`,
    { timeoutMs: 30_000 },
  );
}

function running(): LauncherProcess {
  if (launcher === undefined) throw new Error('the launcher did not start');
  return launcher;
}

async function typeAndRead(r: StreamReader, expr: string, expected: string): Promise<void> {
  r.ws.send(Buffer.from(`\necho kvts-$((${expr}))\n`));
  await r.waitFor(`kvts-${expected}`, 20_000);
}

beforeAll(async () => {
  ensureKvmDeviceAccess(nopLogger);
  [guests, pki] = await Promise.all([ensureGuests(), makeRestPki()]);
  const l = await startLauncher({
    name: NAME,
    uid: UID,
    guest: { kernel: guests.kernel, initrd: guests.agentInitrd, dataDisk: guests.dataDisk },
    gracePeriodSeconds: 2,
  });
  launcher = l;
  const spec = kernelBootVmi({
    name: NAME,
    uid: UID,
    initrd: 'initramfs-agent.cpio.gz',
    cmdline: GUEST_CMDLINE,
    dataDisk: true,
  });
  spec.spec.domain.devices.autoattachGraphicsDevice = true;
  vmi = { ...spec, status: { phase: 'Running', nodeName: NODE, activePods: { [POD_UID]: NODE } } };
  const sync = await l.client.syncVirtualMachine(spec, { DisksInfo: { data: { format: 'qcow2' } } });
  expect(sync).toEqual({ success: true, message: '' });
  await l.readSerial('agent=started', BOOT_MS);
  podsDir = podsDirFor(l);
  const launchers = new LauncherClients({
    node: NODE,
    kubeletPodsDir: podsDir,
    pods: cachedPods(launcherPodFor(vmi, POD_UID, NODE)),
    clock: realClock,
    log: nopLogger,
  });
  const vmis = {
    get: (key: string): VirtualMachineInstance | undefined => (key === `default/${NAME}` ? vmi : undefined),
  };
  server = await startRestServer({
    port: 0,
    host: '127.0.0.1',
    tls: { ca: pki.ca.cert, cert: pki.server.cert, key: pki.server.key },
    resolver: nodeResolver({ vmis, launchers }),
    log: nopLogger,
    registry: newRegistry({ defaultMetrics: false }),
    recorder,
  });
  clients = launchers;
}, 600_000);

afterAll(async () => {
  await server?.close();
  clients?.closeAll();
  await launcher?.cleanup();
  if (podsDir !== undefined) rmSync(podsDir, { recursive: true, force: true });
}, 60_000);

describe('REST server with a real launcher', () => {
  it('streams the serial console: the guest marker, and a shell that answers what is typed', async () => {
    const r = new StreamReader(await openStream(dial(), path('console')));
    const seen = await r.waitFor(MARKER, 20_000);
    expect(seen).toContain(
      `${MARKER} kernel=${guests.kernelVersion} variant=agent data=mounted agent=started`,
    );
    await typeAndRead(r, '6*7', '42');
    r.ws.close(1000);
    expect((await r.closed).code).toBe(1000);
  }, 60_000);

  it('refuses clients without a certificate or with one from another CA at the TLS handshake', async () => {
    for (const client of ['none', pki.stranger] as const) {
      const err = await openStream(dial(client), path('console')).then(
        () => undefined,
        (e: unknown) => e as { code?: string; status?: number },
      );
      expect(err?.status).toBeUndefined();
      expect(err?.code).toMatch(
        /^(ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED|ERR_SSL_TLSV1_ALERT_UNKNOWN_CA|ECONNRESET)$/,
      );
    }
  }, 30_000);

  it('keeps one console per VMI: a second one is refused while the first is open', async () => {
    const first = new StreamReader(await openStream(dial(), path('console')));
    await typeAndRead(first, '1+1', '2');
    await expect(openStream(dial(), path('console'))).rejects.toMatchObject({ status: 409 });
    await typeAndRead(first, '2+3', '5');
    first.ws.close(1000);
    await first.closed;
    const second = new StreamReader(
      await waitFor(() => openStream(dial(), path('console')).catch(() => undefined), 'the console freed'),
    );
    await typeAndRead(second, '3*3', '9');
    second.ws.close(1000);
    await second.closed;
  }, 90_000);

  it('streams VNC: the guest display greets with the RFB version', async () => {
    const r = new StreamReader(await openStream(dial(), path('vnc')));
    expect(await r.waitFor('\n', 20_000)).toMatch(/^RFB 003\.00\d\n/);
    r.ws.close(1000);
    await r.closed;
  }, 30_000);

  it('pauses and unpauses the domain', async () => {
    expect((await call(dial(), 'PUT', path('pause'))).status).toBe(202);
    expect(await domainStatus()).toBe('Paused');
    expect((await call(dial(), 'PUT', path('unpause'))).status).toBe(202);
    expect(await domainStatus()).toBe('Running');
  }, 60_000);

  it('freezes and thaws the guest filesystems; a freeze without a timeout is refused', async () => {
    const none = await call(dial(), 'PUT', path('freeze'));
    expect([none.status, none.text]).toEqual([400, 'Unfreeze timeout in freeze request is not set']);
    const bad = await call(dial(), 'PUT', path('freeze'), '{"unfreezeTimeout":"soon"}');
    expect([bad.status, bad.text]).toEqual([400, 'failed to unmarshal unfreeze timeout']);
    expect((await guestInfo())['fsFreezeStatus']).toBe('thawed');
    expect((await call(dial(), 'PUT', path('freeze'), '{"unfreezeTimeout":"5m0s"}')).status).toBe(202);
    expect((await guestInfo())['fsFreezeStatus']).toBe('frozen');
    expect((await call(dial(), 'PUT', path('unfreeze'))).status).toBe(202);
    expect((await guestInfo())['fsFreezeStatus']).toBe('thawed');
  }, 60_000);

  it('answers the guest agent queries as KubeVirt lists them', async () => {
    const info = await guestInfo();
    expect(info).toMatchObject({ guestAgentVersion: expect.any(String), hostname: expect.any(String) });
    expect((info['os'] as { kernelRelease: string }).kernelRelease).toBe(guests.kernelVersion);
    const users = await call(dial(), 'GET', path('userlist'));
    expect([users.status, JSON.parse(users.text)]).toEqual([200, { metadata: {}, items: [] }]);
    const fs = JSON.parse((await call(dial(), 'GET', path('filesystemlist'))).text) as {
      items: { mountPoint: string; fileSystemType: string }[];
    };
    expect(fs.items.map((f) => [f.mountPoint, f.fileSystemType])).toEqual([['/mnt/data', 'ext4']]);
    const unknown = await call(dial(), 'GET', vmiPath('default', 'other', 'guestosinfo'));
    expect([unknown.status, unknown.text]).toEqual([404, 'VMI default/other does not exist']);
  }, 30_000);

  it(
    'resets the guest: it boots again, and the event is recorded',
    async () => {
      const r = new StreamReader(await openStream(dial(), path('console')));
      await r.waitFor(MARKER, 20_000);
      const before = r.text().split(MARKER).length;
      expect((await call(dial(), 'PUT', path('reset'))).status).toBe(202);
      expect(recorder.events.map((e) => [e.type, e.reason, e.message])).toContainEqual([
        'Normal',
        'Reset',
        'VirtualMachineInstance reset',
      ]);
      await waitFor(() => r.text().split(MARKER).length > before, 'the marker of a second boot', {
        timeoutMs: BOOT_MS,
      });
      r.ws.close(1000);
      await r.closed;
    },
    BOOT_MS + 30_000,
  );
});
