/**
 * The handler on the real local cluster (node `local`, launcher Pods run by the kubelet from the project image,
 * QEMU under TCG), running as a host process for node local, as root, like the DaemonSet's privileged Pod, with
 * the controller in this process:
 * - a VM (the agent test guest) goes Scheduled → Running, with the status fields the handler owns (the expanded
 *   machine type, AgentConnected, guestOSInfo), and the guest's marker is on its serial console; /healthz,
 *   /readyz and the VM's kubevirt_vmi_* counters on /metrics;
 * - the REST server (mutual TLS, certificates made for the run) streams the guest's serial console to a
 *   client with the api's certificate, answers what is typed, refuses a second console and a client without the
 *   certificate, keeps an idle session two minutes on pings, and freezes and thaws the guest's filesystems (seen
 *   in the VMI's fsFreezeStatus); the kubelet lists the device plugins' resources;
 * - kill -9 of the handler while the guest runs, started again: the same QEMU process, the status converges;
 * - the node gets its heartbeat, `kubevirt.io/schedulable` and the node-labeller's labels;
 * - deleting the VMI brings it to Succeeded and the launcher exits;
 * - a launcher killed -9 makes its VMI Failed, with the reason in a condition.
 */
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import {
  ANNOTATIONS,
  LABELS,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
  type VirtualMachineInstance,
} from '../../lib/kubevirt/index.ts';
import type { Pod } from '../../lib/kubevirt/core/pod.ts';
import { KVM_DEVICE, TUN_DEVICE } from '../../lib/kubevirt/device-resources.ts';
import { call, openStream, StreamReader, vmiPath, type Dial } from '../../lib/handler/rest/testing/client.ts';
import { makeRestPki, type RestPki } from '../../lib/handler/rest/testing/pki.ts';
import { NODES, PODS, type KubeObject } from '../../lib/kernel/kube/index.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import { MARKER } from '../../testenv/guests/guests.ts';
import { layout, NODE_NAME } from './layout.ts';
import { pidsNaming, pidsWhere } from './testing/procs.ts';
import { consoleServerFlags, handlerPort, spawnHandler, type HandlerProcess } from './testing/roles.ts';
import { virtSuite } from './testing/suite.ts';
import { agentVm, exampleVm, readSerial } from './virt.ts';

let pki: RestPki | undefined;
/** The REST server with certificates made for the run. */
async function consoleFlags(dir: string): Promise<string[]> {
  pki = await makeRestPki();
  return consoleServerFlags(dir, 'handler-test-pki', pki);
}
const s = virtSuite('handler', { handler: true, handlerFlags: consoleFlags });
function handler(): HandlerProcess {
  if (s.handler === undefined) throw new Error('the suite runs no handler');
  return s.handler;
}

/** The api's side of the REST server: its port once the handler says it listens, the run's certificates. */
async function consoleDial(): Promise<Dial> {
  const port = await waitFor(() => handlerPort(handler(), 'console server listening'), 'console port');
  if (pki === undefined) throw new Error('the suite made no console certificates');
  return { port, ca: pki.ca.cert, client: pki.client };
}
const consolePath = vmiPath(s.ns, 'a', 'console');

/** The launcher log lines of VM name's Pod that match re (the kubelet keeps them while the Pod exists). */
function launcherLog(name: string, re: RegExp): string {
  const dir = layout(s.c.dir).kubelet.podLogs;
  const pods = readdirSync(dir).filter((d) => d.startsWith(`${s.ns}_virt-launcher-${name}-`));
  const lines: string[] = [];
  for (const p of pods) {
    for (const f of readdirSync(`${dir}/${p}/compute`)) {
      lines.push(
        ...readFileSync(`${dir}/${p}/compute/${f}`, 'utf8')
          .split('\n')
          .filter((l) => re.test(l)),
      );
    }
  }
  return lines.slice(-8).join('\n');
}

/** Types an arithmetic expression into the guest's shell on ttyS0 and waits for its value. */
async function typeAndRead(r: StreamReader, expr: string, expected: string): Promise<void> {
  r.ws.send(Buffer.from(`\necho kvts-$((${expr}))\n`));
  await r.waitFor(`kvts-${expected}`, 30_000);
}

const getVmi = (name: string): Promise<VirtualMachineInstance> =>
  s.clients.kv.get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, name, { namespace: s.ns });

async function running(name: string): Promise<{ vmi: VirtualMachineInstance; pod: Pod }> {
  const vmi = await waitFor(
    async () => {
      const v = await getVmi(name);
      return v.status?.phase === 'Running' && v;
    },
    `${name} Running`,
    { timeoutMs: 180_000, intervalMs: 250 },
  );
  const selector = `kubevirt.io/created-by=${vmi.metadata.uid ?? ''}`;
  const pod = (await s.clients.kv.list<Pod>(PODS, { namespace: s.ns, labelSelector: selector })).items[0];
  if (pod === undefined) throw new Error(`${name} runs without a launcher Pod`);
  return { vmi, pod };
}

/** PIDs of QEMU processes of this VMI's domain (`-name guest=<ns>_<name>`). */
const qemuPids = (name: string): number[] =>
  pidsWhere(
    (argv) =>
      (argv[0] ?? '').includes('qemu-system') && argv.some((a) => a.includes(`guest=${s.ns}_${name}`)),
  );

describe('the handler on node local', () => {
  it('runs a VM: Running with its status, the guest on its serial console, the node labelled', async () => {
    await s.clients.kv.create(VIRTUAL_MACHINES, await agentVm(s.ns, 'a'));
    const { vmi, pod } = await running('a');
    expect(vmi.status).toMatchObject({
      nodeName: NODE_NAME,
      machine: { type: expect.stringMatching(/^pc-q35-\d/) },
      memory: { guestCurrent: '128Mi' },
      volumeStatus: [{ name: 'data', target: 'vda' }],
    });
    expect(vmi.status?.phaseTransitionTimestamps?.map((t) => t.phase)).toEqual([
      'Scheduling',
      'Scheduled',
      'Running',
    ]);
    // The whole marker line: the guest writes it in pieces, and the agent's state comes last.
    const serial = await readSerial(
      {
        podUid: pod.metadata.uid ?? '',
        vmiUid: vmi.metadata.uid ?? '',
        until: new RegExp(`${MARKER} [^\n]* agent=\\w+\\s`),
        timeoutMs: 60_000,
      },
      s.c.dir,
    );
    expect(serial).toMatch(new RegExp(`${MARKER} .*variant=agent data=mounted agent=started`));
    // The guest agent comes up after the boot: the handler reports it and what it says of the guest.
    let seen: VirtualMachineInstance['status'];
    const agent = await waitFor(
      async () => {
        const v = await getVmi('a');
        seen = v.status;
        const connected = v.status?.conditions?.some(
          (c) => c.type === 'AgentConnected' && c.status === 'True',
        );
        return connected === true && v.status?.guestOSInfo !== undefined && v;
      },
      () =>
        `AgentConnected and guestOSInfo (conditions ${JSON.stringify(seen?.conditions)}, guestOSInfo ${JSON.stringify(seen?.guestOSInfo)}; serial: ${serial.slice(-300)})`,
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    expect(agent.status?.guestOSInfo).toMatchObject({
      name: 'kubevirt-ts agent guest',
      id: 'kvts-agent',
      versionId: '1',
      kernelRelease: expect.stringMatching(/\S/),
    });
    // Schedulable once the handler's device plugins are registered with the kubelet (its next heartbeat).
    const node = await waitFor(
      async () => {
        const n = await s.clients.kv.get<KubeObject>(NODES, NODE_NAME);
        return n.metadata.labels?.[LABELS.NODE_SCHEDULABLE] === 'true' && n;
      },
      'node local schedulable',
      { timeoutMs: 90_000, intervalMs: 500 },
    );
    const beat = Date.parse(node.metadata.annotations?.[ANNOTATIONS.HANDLER_HEARTBEAT] ?? '');
    expect(Date.now() - beat).toBeLessThan(5 * 60_000);
    // Health and the per-VMI metrics from the launcher's GetDomainStats.
    const port = await waitFor(() => handlerPort(handler()), 'handler health port');
    for (const path of ['/healthz', '/readyz']) {
      expect((await fetch(`http://127.0.0.1:${port}${path}`)).status).toBe(200);
    }
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const cpu = new RegExp(
      `^kubevirt_vmi_cpu_usage_seconds_total\\{namespace="${s.ns}",name="a",node="${NODE_NAME}"\\} ([0-9.e+-]+)$`,
      'm',
    ).exec(metrics);
    expect(Number(cpu?.[1])).toBeGreaterThan(0);
    expect(metrics).toMatch(
      new RegExp(
        `^kubevirt_vmi_memory_balloon_bytes\\{namespace="${s.ns}",name="a",node="${NODE_NAME}"\\} \\d+`,
        'm',
      ),
    );
    expect(metrics).toContain('kubevirt_workqueue_adds_total{name="virt-handler-vm"}');
  }, 300_000);

  it('serves the console to the api over mutual TLS and advertises the device plugins to the kubelet', async () => {
    const r = new StreamReader(await openStream(await consoleDial(), consolePath));
    expect(await r.waitFor(MARKER, 30_000)).toContain(MARKER);
    await typeAndRead(r, '6*7', '42');
    // One console at a time: the second is refused, the first goes on.
    await expect(openStream(await consoleDial(), consolePath)).rejects.toMatchObject({
      status: 409,
      text: expect.stringContaining(`VMI ${s.ns}/a has a console session open`),
    });
    await typeAndRead(r, '2+3', '5');
    r.ws.close(1000);
    await r.closed;
    const refused = await openStream({ ...(await consoleDial()), client: undefined }, consolePath).then(
      () => undefined,
      (e: unknown) => e as { code?: string; status?: number },
    );
    expect(refused?.status).toBeUndefined();
    expect(refused?.code).toMatch(/^(ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED|ECONNRESET)$/);
    // The kubelet took the plugins' registrations: the devices are in the Node's capacity. (An earlier handler's
    // plugins, gone when it stopped, leave their resources at "0" until these register.)
    let capacity: Record<string, string> | undefined;
    await waitFor(
      async () => {
        const n = await s.clients.kv.get<KubeObject & { status?: { capacity?: Record<string, string> } }>(
          NODES,
          NODE_NAME,
        );
        capacity = n.status?.capacity;
        return capacity?.[TUN_DEVICE] === '1k' && capacity[KVM_DEVICE] === '1k';
      },
      () => `the tun and kvm devices at 1k in the node capacity (capacity ${JSON.stringify(capacity)})`,
      { timeoutMs: 60_000 },
    );
    expect(capacity).toMatchObject({ [TUN_DEVICE]: '1k', [KVM_DEVICE]: '1k' });
  }, 120_000);

  it('freezes and thaws the guest filesystems over REST, seen in the VMI status', async () => {
    const dial = await consoleDial();
    const put = (sub: string, body?: string): Promise<{ status: number; text: string }> =>
      call(dial, 'PUT', vmiPath(s.ns, 'a', sub), body);
    // What the agent freezes: the guest's data disk, mounted at /mnt/data.
    const fs = await call(dial, 'GET', vmiPath(s.ns, 'a', 'filesystemlist'));
    expect([fs.status, fs.text]).toEqual([200, expect.stringContaining('"mountPoint":"/mnt/data"')]);
    expect(await put('freeze')).toMatchObject({
      status: 400,
      text: 'Unfreeze timeout in freeze request is not set',
    });
    let seen: string | undefined;
    const freezeStatus = (want: string | undefined): Promise<unknown> =>
      waitFor(
        async () => {
          seen = (await getVmi('a')).status?.fsFreezeStatus;
          return seen === want;
        },
        () =>
          `fsFreezeStatus ${want ?? 'none'} (last: ${seen ?? 'none'}; launcher: ${launcherLog('a', /freez|thaw|facts|agent/)})`,
        { timeoutMs: 60_000, intervalMs: 250 },
      );
    // Under TCG on a loaded machine the agent may miss the call's deadline once: try again.
    await waitFor(async () => (await put('freeze', '{"unfreezeTimeout":"5m0s"}')).status === 202, 'a freeze');
    await freezeStatus('frozen');
    await waitFor(async () => (await put('unfreeze')).status === 202, 'an unfreeze');
    // Thawed, the status has no fsFreezeStatus (KubeVirt clears it).
    await freezeStatus(undefined);
  }, 180_000);

  it('keeps an idle console open for two minutes on the server’s pings', async () => {
    const ws = await openStream(await consoleDial(), consolePath);
    const r = new StreamReader(ws);
    let pings = 0;
    ws.on('ping', () => {
      pings++;
    });
    await new Promise((done) => setTimeout(done, 120_000));
    expect(ws.readyState).toBe(ws.OPEN);
    // The handler's default ping period is 30 s.
    expect(pings).toBeGreaterThanOrEqual(3);
    await typeAndRead(r, '4*4', '16');
    ws.close(1000);
    await r.closed;
  }, 240_000);

  it('kill -9 of the handler leaves the guest alone; started again, it converges', async () => {
    const before = qemuPids('a');
    expect(before).toHaveLength(1);
    const rv = (await getVmi('a')).metadata.resourceVersion;
    handler().child.kill('SIGKILL');
    await handler().exited;
    await new Promise((r) => setTimeout(r, 2000));
    expect(qemuPids('a')).toEqual(before);
    s.handler = spawnHandler(s.c.kubeconfig, s.c.dir, s.handlerFlags);
    // Back: the heartbeat is fresh, nothing about the VMI changed.
    await waitFor(
      async () => {
        const node = await s.clients.kv.get<KubeObject>(NODES, NODE_NAME);
        return (
          Date.parse(node.metadata.annotations?.[ANNOTATIONS.HANDLER_HEARTBEAT] ?? '') > Date.now() - 10_000
        );
      },
      'a fresh heartbeat',
      { timeoutMs: 60_000 },
    );
    await new Promise((r) => setTimeout(r, 5000));
    const after = await getVmi('a');
    expect(after.status?.phase).toBe('Running');
    expect(after.metadata.resourceVersion).toBe(rv);
    expect(qemuPids('a')).toEqual(before);
  }, 300_000);

  it('deleting the VMI brings it to Succeeded and its launcher exits', async () => {
    const uid = (await getVmi('a')).metadata.uid ?? '';
    // The VM would start a new VMI: stop it, then delete the VMI the way a user stops one.
    await s.clients.kv.patch(
      VIRTUAL_MACHINES,
      'a',
      { spec: { runStrategy: 'Halted' } },
      { namespace: s.ns, type: 'merge' },
    );
    // Watch from the current version: every phase the VMI goes through until it is gone.
    const phases: string[] = [];
    const rv = (await getVmi('a')).metadata.resourceVersion ?? '';
    const stop = new AbortController();
    const timer = setTimeout(() => {
      stop.abort();
    }, 120_000);
    const events = s.clients.kv.watch<VirtualMachineInstance>(
      VIRTUAL_MACHINE_INSTANCES,
      { namespace: s.ns, fieldSelector: 'metadata.name=a', resourceVersion: rv },
      stop.signal,
    );
    for await (const ev of events) {
      if (ev.type === 'ERROR' || ev.type === 'BOOKMARK' || ev.object.metadata.uid !== uid) continue;
      const phase = ev.object.status?.phase;
      if (phase !== undefined && phases.at(-1) !== phase) phases.push(phase);
      if (ev.type === 'DELETED') break;
    }
    clearTimeout(timer);
    stop.abort();
    expect(phases).toContain('Succeeded');
    expect(phases).not.toContain('Failed');
    await waitFor(() => pidsNaming(uid).length === 0, 'the launcher to exit', { timeoutMs: 60_000 });
    expect(qemuPids('a')).toEqual([]);
  }, 300_000);

  it('a launcher killed -9 makes its VMI Failed', async () => {
    await s.clients.kv.create(VIRTUAL_MACHINES, {
      ...(await exampleVm(s.ns, 'b')),
      spec: { ...(await exampleVm(s.ns, 'b')).spec, runStrategy: 'Once' },
    });
    const { vmi } = await running('b');
    const uid = vmi.metadata.uid ?? '';
    const [launcher] = pidsWhere(
      (argv) => argv.some((a) => a.includes(uid)) && argv.some((a) => a.includes('virt.mjs')),
    );
    expect(launcher).toBeDefined();
    process.kill(launcher ?? 0, 'SIGKILL');
    const failed = await waitFor(
      async () => {
        const v = await getVmi('b').catch(() => undefined);
        return v?.status?.phase === 'Failed' && v;
      },
      'the VMI to fail',
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    expect(failed.metadata.uid).toBe(uid);
    // Whoever notices first says why: the handler (its launcher stopped answering) or the controller (the
    // launcher Pod terminated, its container exited with the launcher).
    const reasons = (failed.status?.conditions ?? [])
      .filter((x) => x.status === 'False')
      .map((x) => x.reason);
    expect(reasons.some((r) => r === 'LauncherUnresponsive' || r === 'PodTerminating')).toBe(true);
  }, 300_000);
});
