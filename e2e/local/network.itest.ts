/**
 * VMs on the Pod network of the real local cluster (its Pod network is a real CNI bridge), with the handler as a
 * host process for node local and the controller in this process:
 * - a VM (the agent guest) with a masquerade interface declaring TCP 1500, UDP 1501 and ssh gets its address
 *   from the launcher's DHCP server (the guest prints it), and its VMI reports the launcher Pod's IP, the
 *   domain's MAC and the guest agent's name of the interface in status.interfaces;
 * - another Pod reaches the guest's declared ports through the Pod IP (TCP and UDP echo), and the undeclared
 *   TCP 1502, which the guest serves too, is refused;
 * - the Pods are dual-stack: the guest gets fd10:0:2::2 from the launcher's DHCPv6 server and its route from the
 *   handler's router advertisements, and the same holds through the Pod's IPv6 address;
 * - a port-forward websocket through kube-apiserver's subresource, the api (in this process) and the handler reaches
 *   the guest's TCP echo and, a datagram per message, its UDP echo; an undeclared port is refused with a clear 500 before any websocket opens;
 * - `virtctl-ts port-forward` forwards a local TCP and UDP port to the guest's echoes and ends on Ctrl+C;
 *   `virtctl-ts ssh` runs a command in the agent guest through the same tunnel with the system's ssh, and
 *   `virtctl-ts scp` copies a file there and back;
 * - from inside one guest, another VM's declared port answers through its Pod IP and its undeclared one does not;
 * - with a binding plugin attached by tap in the KubeVirt resource, a VMI of that binding gets its tap (and no
 *   bridge) in the launcher Pod's namespace and a NIC in the guest, which finds no DHCP there;
 * - a VM with the bridge binding gets the Pod's IP by DHCP and the Pod's MAC, and answers another Pod on every
 *   port of that IP;
 * - deleting the VM leaves no launcher process behind, and the node has none of the setup's links.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import {
  KUBEVIRTS,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
  type KubeVirt,
  type VirtualMachine,
  type VirtualMachineInstance,
} from '../../lib/kubevirt/index.ts';
import type { Pod } from '../../lib/kubevirt/core/pod.ts';
import { PODS } from '../../lib/kernel/kube/index.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import { GUEST_PORTS, MARKER, NET6_MARKER, NET_MARKER, sshKeyParam } from '../../testenv/guests/guests.ts';
import { VIRTCTL, virtctl } from '../scenarios/virtctl.ts';
import { run } from './exec.ts';
import { IMAGES } from './layout.ts';
import { pidsNaming } from './testing/procs.ts';
import { handlerConsole, startApiStack, type ApiStack, type HandlerConsole } from './testing/api-stack.ts';
import { handlerLines } from './testing/roles.ts';
import { virtSuite } from './testing/suite.ts';
import { masqueradeVm, readSerial } from './virt.ts';

let handlerSide: HandlerConsole | undefined;
let stack: ApiStack | undefined;
const s = virtSuite('network', {
  handler: true,
  // The handler follows the KubeVirt resource of the test's namespace (its network binding plugins).
  handlerFlags: async (dir) => {
    handlerSide = await handlerConsole(dir, 'network-test-pki');
    return [...handlerSide.flags, '--namespace', s.ns];
  },
  cleanup: async () => {
    await stack?.stop();
  },
});

beforeAll(async () => {
  if (handlerSide === undefined) throw new Error('the suite made no handler certificates');
  stack = await startApiStack({
    kubeconfig: s.c.kubeconfig,
    ns: s.ns,
    direct: s.clients.direct,
    handler: handlerSide,
    webhooks: false,
  });
}, 600_000);

/**
 * One port-forward tunnel through kube-apiserver's subresources.kubevirt.io path, the api and the handler, as
 * virtctl opens it: what the guest sends back for `send`, or the HTTP refusal with its body.
 */
function forward(
  name: string,
  port: number | `${number}/udp`,
  send: string,
): Promise<{ echoed?: string; refused?: string }> {
  if (stack === undefined) throw new Error('the api stack is not up');
  const { ca, cert, key, server } = stack.admin;
  const path = `/apis/subresources.kubevirt.io/v1/namespaces/${s.ns}/virtualmachineinstances/${name}/portforward/${port}`;
  const url = new URL(path, server);
  url.protocol = 'wss:';
  const ws = new WebSocket(url, ['plain.kubevirt.io'], { ca, cert, key });
  return new Promise((resolve, reject) => {
    let got = '';
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`no answer through port ${port} within 30 s (got ${JSON.stringify(got)})`));
    }, 30_000);
    const done = (r: { echoed?: string; refused?: string }): void => {
      clearTimeout(timer);
      ws.close();
      resolve(r);
    };
    ws.on('open', () => {
      ws.send(Buffer.from(send));
    });
    ws.on('message', (d: Buffer) => {
      got += d.toString('utf8');
      if (got.length >= send.length) done({ echoed: got });
    });
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () => {
        done({ refused: `${res.statusCode ?? 0} ${body}` });
      });
    });
    ws.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

async function runningVmi(name: string): Promise<VirtualMachineInstance> {
  return waitFor(
    async () => {
      const v = await s.clients.kv
        .get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, name, { namespace: s.ns })
        .catch(() => undefined);
      return v?.status?.phase === 'Running' && (v.status.interfaces?.[0]?.ipAddress ?? '') !== ''
        ? v
        : undefined;
    },
    `VMI ${name} Running with an address`,
    { timeoutMs: 240_000 },
  );
}

/**
 * What a Pod of the project's image finds at host: a TCP echo on one port, a UDP echo on another, and whether
 * a third TCP port answers; the result comes back as the container's termination message.
 */
const PROBE = `
const net = require('node:net'); const dgram = require('node:dgram'); const fs = require('node:fs');
const [host, tcp, udp, closed] = process.argv.slice(1);
const timeout = (p, ms, what) => Promise.race([p, new Promise((_, j) => setTimeout(() => j(new Error(what + ' timed out')), ms))]);
const tcpEcho = () => timeout(new Promise((ok, fail) => {
  const c = net.connect(Number(tcp), host, () => c.write('hello over tcp'));
  let got = ''; c.on('data', (d) => { got += d; if (got.length >= 14) { c.end(); ok(got); } }); c.on('error', fail);
}), 10000, 'tcp echo');
const udpEcho = () => timeout(new Promise((ok, fail) => {
  const u = dgram.createSocket(host.includes(':') ? 'udp6' : 'udp4'); u.on('error', fail);
  u.on('message', (m) => { u.close(); ok(String(m)); });
  const send = () => u.send('hello over udp', Number(udp), host);
  send(); const t = setInterval(send, 1000); u.on('close', () => clearInterval(t));
}), 10000, 'udp echo');
const refused = () => timeout(new Promise((ok) => {
  const c = net.connect(Number(closed), host, () => { c.destroy(); ok('connected'); });
  c.on('error', (e) => ok(e.code));
}), 10000, 'undeclared port');
(async () => {
  const out = { tcp: await tcpEcho().catch((e) => 'error: ' + e.message), udp: await udpEcho().catch((e) => 'error: ' + e.message), closed: await refused().catch((e) => 'error: ' + e.message) };
  fs.writeFileSync('/dev/termination-log', JSON.stringify(out));
})();
`;

let probes = 0;
async function probeFromPod(host: string): Promise<Record<string, string>> {
  probes += 1;
  const name = `probe-${probes}`;
  await s.clients.direct.create<Pod>(PODS, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: s.ns },
    spec: {
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name,
          image: IMAGES.virt,
          imagePullPolicy: 'Never',
          command: [
            'node',
            '-e',
            PROBE,
            host,
            String(GUEST_PORTS.tcpEcho),
            String(GUEST_PORTS.udpEcho),
            String(GUEST_PORTS.hostname),
          ],
        },
      ],
    },
  });
  const done = await waitFor(
    async () => {
      const p = await s.clients.direct.get<Pod>(PODS, name, { namespace: s.ns });
      const phase = p.status?.phase;
      return phase === 'Succeeded' || phase === 'Failed' ? p : undefined;
    },
    'the probe Pod to finish',
    { timeoutMs: 120_000 },
  );
  const message = done.status?.containerStatuses?.[0]?.state?.terminated?.message ?? '{}';
  return JSON.parse(message) as Record<string, string>;
}

/**
 * The handler's tun device plugin registered with the kubelet: a launcher Pod the kubelet admits before that
 * (right after a restart, the Node still lists the resource) runs without /dev/net/tun.
 */
async function tunRegistered(): Promise<void> {
  const h = s.handler;
  if (h === undefined) throw new Error('the suite runs no handler');
  await waitFor(
    () =>
      handlerLines(h).some(
        (l) => l['msg'] === 'device plugin registered' && String(l['resource']).endsWith('/tun'),
      ),
    'the tun device plugin to register',
    { timeoutMs: 60_000 },
  );
}

let sshDir: string | undefined;
/** The VM booting the agent test guest (qemu-ga, dropbear), root's ssh key a throw-away one of the test's. */
async function agentWithKey(vm: VirtualMachine): Promise<VirtualMachine> {
  sshDir = await mkdtemp(join(tmpdir(), 'kv-network-ssh-'));
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(sshDir, 'id')]);
  const boot = vm.spec.template.spec.domain.firmware?.kernelBoot;
  if (boot?.container === undefined) throw new Error('the example VM boots no kernel');
  boot.container.initrdPath = '/boot/initramfs-agent.cpio.gz';
  boot.kernelArgs = `${boot.kernelArgs ?? ''} ${sshKeyParam(await readFile(join(sshDir, 'id.pub'), 'utf8'))}`;
  return vm;
}

/** The ssh options (`-t`, virtctl's --local-ssh-opts) that skip the throw-away guest's host key. */
const NO_HOST_KEYS = ['-t', '-oStrictHostKeyChecking=no', '-t', '-oUserKnownHostsFile=/dev/null'];

/** `command` run as root in the agent guest of VM masq by `virtctl-ts ssh` with the test's key. */
function sshToMasq(command: string): ReturnType<ReturnType<typeof virtctl>['run']> {
  const key = join(sshDir ?? '', 'id');
  return virtctl(s.c.kubeconfig, s.ns).run('ssh', '-i', key, ...NO_HOST_KEYS, '-c', command, 'root@vmi/masq');
}

/** The uid and IPs of the VMI's launcher Pod (the local Pod network is dual-stack: ip6 is its IPv6 one). */
async function launcherPodOf(vmi: VirtualMachineInstance): Promise<{ uid: string; ip: string; ip6: string }> {
  const active = Object.keys(vmi.status?.activePods ?? {});
  const pods = await s.clients.direct.list<Pod>(PODS, { namespace: s.ns });
  const pod = pods.items.find((p) => active.includes(p.metadata.uid ?? ''));
  const ip = pod?.status?.podIP;
  if (pod === undefined || ip === undefined) throw new Error('the VMI has no launcher Pod with an IP');
  const ip6 = (pod.status?.podIPs ?? []).map((p) => p.ip ?? '').find((a) => a.includes(':')) ?? '';
  return { uid: pod.metadata.uid ?? '', ip, ip6 };
}

afterAll(async () => {
  if (sshDir !== undefined) await rm(sshDir, { recursive: true, force: true });
});

/** What the TCP echo behind a local port sends back. */
function tcpEcho(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = connect(port, '127.0.0.1', () => c.write(text));
    let got = '';
    c.on('data', (d: Buffer) => {
      got += d.toString();
      if (got.length >= text.length) {
        c.destroy();
        resolve(got);
      }
    });
    c.on('error', reject);
  });
}

/** What the UDP echo behind a local port sends back (sent again each second until it answers, 20 s at most). */
function udpEcho(port: number, text: string): Promise<string> {
  const u = createSocket('udp4');
  return new Promise<string>((resolve, reject) => {
    const send = (): void => {
      u.send(text, port, '127.0.0.1');
    };
    const again = setInterval(send, 1000);
    const timer = setTimeout(() => {
      reject(new Error(`no UDP echo on ${port}`));
    }, 20_000);
    u.on('message', (m) => {
      clearInterval(again);
      clearTimeout(timer);
      resolve(m.toString());
    });
    send();
  }).finally(() => u.close());
}

describe('a VM on the Pod network', () => {
  it('gets its address by DHCP, reports the Pod IP, and serves only its declared ports', async () => {
    await tunRegistered();
    await s.clients.kv.create(VIRTUAL_MACHINES, await agentWithKey(await masqueradeVm(s.ns, 'masq')));
    const vmi = await runningVmi('masq');
    const { uid, ip } = await launcherPodOf(vmi);
    const [iface] = vmi.status?.interfaces ?? [];
    expect(iface).toMatchObject({ name: 'default', ipAddress: ip, infoSource: 'domain' });
    expect(iface?.mac).toMatch(/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/);

    const serial = await readSerial(
      { podUid: uid, vmiUid: vmi.metadata.uid ?? '', until: MARKER, timeoutMs: 120_000 },
      s.c.dir,
    );
    expect(serial).toContain(`${NET_MARKER} 10.0.2.2/24`);
    // The guest agent names the interface in the guest; the Pod's IP stays the address.
    const named = await waitFor(
      async () => {
        const v = await s.clients.kv.get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, 'masq', {
          namespace: s.ns,
        });
        const first = v.status?.interfaces?.[0];
        return first?.interfaceName === 'eth0' && first;
      },
      'the guest agent’s name of the interface in the status',
      { timeoutMs: 60_000 },
    );
    expect(named).toMatchObject({ ipAddress: ip, infoSource: 'domain, guest-agent' });

    expect(await probeFromPod(ip)).toEqual({
      tcp: 'hello over tcp',
      udp: 'hello over udp',
      closed: 'ECONNREFUSED',
    });
  }, 600_000);

  it('leases the guest fd10:0:2::2 by DHCPv6 with router advertisements, and serves its declared ports on the Pod’s IPv6 address', async () => {
    const vmi = await s.clients.kv.get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, 'masq', {
      namespace: s.ns,
    });
    const { uid, ip, ip6 } = await launcherPodOf(vmi);
    expect(ip6).toMatch(/^fd00:10:247:/);
    expect(vmi.status?.interfaces?.[0]?.ipAddresses).toEqual([ip, ip6]);
    const serial = await readSerial(
      {
        podUid: uid,
        vmiUid: vmi.metadata.uid ?? '',
        until: new RegExp(`${NET6_MARKER} \\S+`),
        timeoutMs: 120_000,
      },
      s.c.dir,
    );
    expect(serial).toMatch(new RegExp(`${NET6_MARKER} fd10:0:2::2/\\d+`));
    // The route the advertisements gave the guest: the VM subnet on its link and the bridge as default router.
    const routes = await sshToMasq('ip -6 route show');
    expect(routes.stdout).toMatch(/fd10:0:2::\/120 dev eth0/);
    expect(routes.stdout).toMatch(/default via fe80::[0-9a-f:]+ dev eth0/);
    expect(await probeFromPod(ip6)).toEqual({
      tcp: 'hello over tcp',
      udp: 'hello over udp',
      closed: 'ECONNREFUSED',
    });
  }, 300_000);

  it('forwards guest ports (tcp, udp) through kube-apiserver, the api and the handler; a closed one is a clear error', async () => {
    expect(await forward('masq', GUEST_PORTS.tcpEcho, 'hello through the api')).toEqual({
      echoed: 'hello through the api',
    });
    expect(await forward('masq', `${GUEST_PORTS.udpEcho}/udp`, 'a datagram through the api')).toEqual({
      echoed: 'a datagram through the api',
    });
    // Undeclared: the Pod's loopback is not sent on to the guest, and nothing in the Pod listens there.
    const closed = await forward('masq', GUEST_PORTS.hostname, 'x');
    expect(closed.refused).toMatch(/^500 .*dialing VM: port 1502: connection refused/);
    const nowhere = await forward('nope', GUEST_PORTS.tcpEcho, 'x');
    expect(nowhere.refused).toMatch(/^404 .*not found/);
  }, 120_000);

  it('forwards local ports with virtctl-ts port-forward, runs a command over virtctl-ts ssh and copies with scp', async () => {
    const kubeconfig = s.c.kubeconfig;
    const child = spawn(
      VIRTCTL,
      [
        '--kubeconfig',
        kubeconfig,
        '-n',
        s.ns,
        'port-forward',
        'vmi/masq',
        `0:${GUEST_PORTS.tcpEcho}`,
        `udp/0:${GUEST_PORTS.udpEcho}`,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      const ports = await waitFor(
        () => {
          const tcp = /forwarding tcp 127\.0\.0\.1:(\d+) to 1500/.exec(stderr)?.[1];
          const udp = /forwarding udp 127\.0\.0\.1:(\d+) to 1501/.exec(stderr)?.[1];
          return tcp !== undefined && udp !== undefined && { tcp: Number(tcp), udp: Number(udp) };
        },
        () => `virtctl-ts port-forward listening (stderr: ${stderr})`,
        { timeoutMs: 30_000 },
      );
      expect(await tcpEcho(ports.tcp, 'through virtctl-ts')).toBe('through virtctl-ts');
      expect(await udpEcho(ports.udp, 'a datagram through virtctl-ts')).toBe('a datagram through virtctl-ts');
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);

    const ssh = await sshToMasq('echo from-the-guest; hostname');
    expect(ssh).toMatchObject({ code: 0 });
    expect(ssh.stdout).toContain('from-the-guest\nmasq');

    // scp both ways through the same tunnel.
    const local = join(sshDir ?? '', 'payload');
    const payload = `copied by virtctl-ts scp ${Date.now()}\n`;
    await writeFile(local, payload);
    const key = join(sshDir ?? '', 'id');
    const scp = (...args: string[]): ReturnType<ReturnType<typeof virtctl>['run']> =>
      virtctl(s.c.kubeconfig, s.ns).run('scp', '-i', key, ...NO_HOST_KEYS, ...args);
    expect(await scp(local, 'root@vmi/masq:/tmp/payload')).toMatchObject({ code: 0 });
    expect((await sshToMasq('cat /tmp/payload')).stdout).toContain(payload);
    expect(await scp('root@vmi/masq:/tmp/payload', `${local}.back`)).toMatchObject({ code: 0 });
    expect(await readFile(`${local}.back`, 'utf8')).toBe(payload);
  }, 180_000);

  it('keeps two VMs from each other’s undeclared ports', async () => {
    await s.clients.kv.create(VIRTUAL_MACHINES, await masqueradeVm(s.ns, 'other'));
    const otherVmi = await runningVmi('other');
    const other = await launcherPodOf(otherVmi);
    const vmiUid = otherVmi.metadata.uid ?? '';
    await readSerial({ podUid: other.uid, vmiUid, until: MARKER, timeoutMs: 120_000 }, s.c.dir);
    // From inside the first guest: its traffic leaves through its Pod's NAT and reaches the other Pod's IP.
    const script = [
      `echo declared | nc -w 5 ${other.ip} ${GUEST_PORTS.tcpEcho}`,
      `nc -w 5 ${other.ip} ${GUEST_PORTS.hostname} </dev/null; echo "undeclared rc=$?"`,
    ].join('; ');
    const ssh = await sshToMasq(script);
    expect(ssh.stdout).toContain('declared\n');
    expect(ssh.stdout).not.toContain('other');
    expect(ssh.stdout).toMatch(/undeclared rc=[1-9]/);
    await s.clients.kv.delete(VIRTUAL_MACHINES, 'other', { namespace: s.ns });
  }, 240_000);

  it('gives a VMI of a binding plugin attached by tap its tap in the Pod and a NIC in the guest', async () => {
    await s.clients.kv.create<KubeVirt>(KUBEVIRTS, {
      apiVersion: 'kubevirt.io/v1',
      kind: 'KubeVirt',
      metadata: { name: 'kubevirt', namespace: s.ns },
      spec: { configuration: { network: { binding: { deckhouse: { domainAttachmentType: 'tap' } } } } },
    });
    const vm = await masqueradeVm(s.ns, 'plugged');
    const spec = vm.spec.template.spec;
    spec.domain.devices.interfaces = [{ name: 'default', binding: { name: 'deckhouse' } }];
    await waitFor(() => s.clients.kv.create(VIRTUAL_MACHINES, vm).then(() => true), 'the VM admitted', {
      timeoutMs: 10_000,
    });
    const vmi = await runningVmi('plugged');
    const { uid } = await launcherPodOf(vmi);
    const [pid] = pidsNaming(vmi.metadata.uid ?? '');
    // The tap the handler made, in the launcher Pod's namespace (no bridge: the plugin's CNI does the rest).
    const links = JSON.parse(
      await run('nsenter', [`--net=/proc/${pid ?? 0}/ns/net`, '--', 'ip', '-j', '-d', 'link', 'show']),
    ) as { ifname: string; operstate?: string; linkinfo?: { info_kind?: string } }[];
    expect(links.find((l) => l.ifname === 'tap0')).toMatchObject({ linkinfo: { info_kind: 'tun' } });
    expect(links.some((l) => l.ifname.startsWith('k6t-'))).toBe(false);
    // No DHCP here: the guest finds its NIC, tries for a lease and goes on.
    const serial = await readSerial(
      { podUid: uid, vmiUid: vmi.metadata.uid ?? '', until: MARKER, timeoutMs: 120_000 },
      s.c.dir,
    );
    expect(serial).toContain(`${NET_MARKER} none`);
    await s.clients.kv.delete(VIRTUAL_MACHINES, 'plugged', { namespace: s.ns });
  }, 300_000);

  it('gives a bridge guest the Pod’s own address, MAC and every port of the Pod IP', async () => {
    await tunRegistered();
    const vm = await masqueradeVm(s.ns, 'bridged');
    vm.spec.template.spec.domain.devices.interfaces = [{ name: 'default', bridge: {} }];
    await s.clients.kv.create(VIRTUAL_MACHINES, vm);
    const vmi = await runningVmi('bridged');
    const { uid, ip } = await launcherPodOf(vmi);
    const [iface] = vmi.status?.interfaces ?? [];
    expect(iface).toMatchObject({ name: 'default', ipAddress: ip });
    // The Pod interface is a port of the bridge now; its name, MAC and addresses stay on a link that is never up.
    const [pid] = pidsNaming(vmi.metadata.uid ?? '');
    const links = JSON.parse(
      await run('nsenter', [`--net=/proc/${pid ?? 0}/ns/net`, '--', 'ip', '-j', 'addr', 'show']),
    ) as {
      ifname: string;
      address: string;
      master?: string;
      flags: string[];
      addr_info: { local: string }[];
    }[];
    const eth0 = links.find((l) => l.ifname === 'eth0');
    expect(eth0?.flags).not.toContain('UP');
    expect(eth0?.addr_info.map((a) => a.local)).toContain(ip);
    expect(iface?.mac).toBe(eth0?.address);
    expect(links.find((l) => l.ifname === 'eth0-nic')).toMatchObject({ master: 'k6t-eth0', addr_info: [] });

    const serial = await readSerial(
      { podUid: uid, vmiUid: vmi.metadata.uid ?? '', until: MARKER, timeoutMs: 120_000 },
      s.c.dir,
    );
    expect(serial).toMatch(new RegExp(`${NET_MARKER} ${ip.replaceAll('.', '\\.')}/\\d+`));
    // No NAT in between: the guest answers on the Pod IP, undeclared ports included.
    expect(await probeFromPod(ip)).toEqual({
      tcp: 'hello over tcp',
      udp: 'hello over udp',
      closed: 'connected',
    });
    await s.clients.kv.delete(VIRTUAL_MACHINES, 'bridged', { namespace: s.ns });
  }, 300_000);

  it('deleting the VM leaves no launcher process and no link on the node', async () => {
    const vmi = await s.clients.kv.get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, 'masq', {
      namespace: s.ns,
    });
    await s.clients.kv.delete(VIRTUAL_MACHINES, 'masq', { namespace: s.ns });
    await waitFor(() => pidsNaming(vmi.metadata.uid ?? '').length === 0, 'the launcher processes to end', {
      timeoutMs: 120_000,
    });
    // The setup ran in the Pod's namespace, which went with the Pod: the node never had these links.
    const hostLinks = JSON.parse(await run('ip', ['-j', 'link', 'show'])) as { ifname: string }[];
    expect(hostLinks.map((l) => l.ifname).filter((n) => n.startsWith('k6t-') || n === 'tap0')).toEqual([]);
  }, 180_000);
});
