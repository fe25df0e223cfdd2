/**
 * What the virtualization roles need of the local cluster before they run: the internal CRDs, node `local`
 * marked schedulable for launcher Pods (kubevirt.io/schedulable, the handler's heartbeat label, set here until
 * the handler sets it), and the example VM of manifests/examples. Also where the node sees a launcher Pod's
 * command socket (the kubelet's pods dir of this stack), as the handler will look for it.
 */
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import {
  ANNOTATIONS,
  LABELS,
  VIRTUAL_MACHINE_INSTANCES,
  type VirtualMachine,
  type VirtualMachineInstance,
} from '../../lib/kubevirt/index.ts';
import {
  HttpKubeClient,
  loadRestConfig,
  NAMESPACES,
  NODES,
  type KubeClient,
} from '../../lib/kernel/kube/index.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import { installCrds } from '../../lib/operator/apply/install-crds.ts';
import { rewritingClient } from '../../lib/rename/client/index.ts';
import { buildRuleIndex, KUBEVIRT_REWRITE_RULES } from '../../lib/rename/index.ts';
import { launcherOnNode, launcherSocketOnNode, openSocket } from '../../lib/rpc/index.ts';
import { GUEST_PORTS } from '../../testenv/guests/guests.ts';
import { layout, NODE_NAME } from './layout.ts';

const EXAMPLE_VM = fileURLToPath(new URL('../../manifests/examples/vm-tiny.yaml', import.meta.url));

export interface VirtClients {
  /** Straight to the API server (internal names). */
  direct: HttpKubeClient;
  /** Speaks kubevirt.io through the rename rules, as the roles do. */
  kv: KubeClient;
  close(): Promise<void>;
}

export function virtClients(kubeconfig: string, userAgent: string): VirtClients {
  const direct = new HttpKubeClient(loadRestConfig({ kubeconfig, inCluster: false, qps: 0, userAgent }));
  return {
    direct,
    kv: rewritingClient(direct, buildRuleIndex(KUBEVIRT_REWRITE_RULES)),
    close: () => direct.destroy(),
  };
}

/** CRDs installed and Established; node `local` labelled schedulable. Idempotent. */
export async function prepareForVirt(c: VirtClients): Promise<void> {
  await installCrds(c.direct);
  await c.kv.patch(
    NODES,
    NODE_NAME,
    // A heartbeat an earlier run's handler left in etcd goes stale while this suite runs without one, and the
    // controller then marks the node unschedulable: the node starts out as one no handler has seen yet.
    {
      metadata: {
        labels: { [LABELS.NODE_SCHEDULABLE]: 'true' },
        annotations: { [ANNOTATIONS.HANDLER_HEARTBEAT]: null },
      },
    },
    {
      type: 'merge',
    },
  );
}

/**
 * Deletes a test namespace and waits (up to timeoutMs, then gives up quietly) until it is gone. Call it while the
 * roles still run: they finish the VMs' and VMIs' finalizers, and a namespace deleted after they stopped stays
 * Terminating until a controller runs again.
 */
/** The VMI ns/name once it is Running (it may not exist yet when called, as when its VM was just created). */
export function vmiRunning(
  c: VirtClients,
  ns: string,
  name: string,
  timeoutMs = 240_000,
): Promise<VirtualMachineInstance> {
  return waitFor(
    async () => {
      const v = await c.kv
        .get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, name, { namespace: ns })
        .catch(() => undefined);
      return v?.status?.phase === 'Running' && v;
    },
    `the VMI ${name} Running`,
    { timeoutMs, intervalMs: 500 },
  );
}

export async function deleteNamespace(c: VirtClients, ns: string, timeoutMs = 240_000): Promise<void> {
  await c.direct.delete(NAMESPACES, ns).catch(() => undefined);
  const gone = (): Promise<boolean> =>
    c.direct.get(NAMESPACES, ns).then(
      () => false,
      () => true,
    );
  await waitFor(gone, `namespace ${ns} gone`, { timeoutMs, intervalMs: 1000 }).catch(() => undefined);
}

/** The example VM as `./dev run` runs it (manifests/examples/vm-tiny.yaml), in namespace ns, under name. */
export async function shippedExampleVm(ns: string, name?: string): Promise<VirtualMachine> {
  const vm = parse(await readFile(EXAMPLE_VM, 'utf8')) as VirtualMachine;
  vm.metadata = { ...vm.metadata, namespace: ns, ...(name !== undefined && { name }) };
  return vm;
}

/**
 * The example VM without its NIC, for the tests that are not about the network: its launcher Pod asks for no
 * device, so it starts wherever the handler's device plugins are not registered (yet).
 */
export async function exampleVm(ns: string, name?: string): Promise<VirtualMachine> {
  const vm = await shippedExampleVm(ns, name);
  const spec = vm.spec.template.spec;
  delete spec.networks;
  delete spec.domain.devices.interfaces;
  spec.domain.devices.autoattachPodInterface = false;
  return vm;
}

/** The example VM booting the agent test guest (qemu-ga, virtio-scsi, a shell on ttyS0) instead of the tiny one. */
export async function agentVm(ns: string, name?: string): Promise<VirtualMachine> {
  const vm = await exampleVm(ns, name);
  const boot = vm.spec.template.spec.domain.firmware?.kernelBoot?.container;
  if (boot === undefined) throw new Error('the example VM boots no kernel');
  boot.initrdPath = '/boot/initramfs-agent.cpio.gz';
  return vm;
}

/**
 * The example VM with a masquerade interface on the Pod network declaring the test guest's TCP and UDP echo
 * ports and ssh (its hostname port stays undeclared).
 */
export async function masqueradeVm(ns: string, name: string): Promise<VirtualMachine> {
  const vm = await shippedExampleVm(ns, name);
  const spec = vm.spec.template.spec;
  const ports = [
    { port: GUEST_PORTS.tcpEcho },
    { port: GUEST_PORTS.udpEcho, protocol: 'UDP' },
    { port: GUEST_PORTS.ssh },
  ];
  spec.domain.devices.interfaces = [{ name: 'default', masquerade: {}, ports }];
  spec.networks = [{ name: 'default', pod: {} }];
  return vm;
}

/** The kubelet's pods directory of the stack in dir. */
export function kubeletPodsDir(dir?: string): string {
  return `${layout(dir).kubelet.root}/pods`;
}

/** Where node `local` sees the command socket of the launcher Pod with this uid. */
export function launcherSocketPath(podUid: string, dir?: string): string {
  return launcherSocketOnNode(kubeletPodsDir(dir), podUid);
}

/**
 * What the VMI's serial console has said so far, up to `until` (the launcher replays its recent output to each
 * client), read on the node through the launcher Pod's private emptyDir; with `send`, the line is typed first
 * and only what follows it counts. Rejects after timeoutMs.
 */
export async function readSerial(
  o: { podUid: string; vmiUid: string; until: string | RegExp; timeoutMs: number; send?: string },
  dir?: string,
): Promise<string> {
  const serial = await openSocket(launcherOnNode(kubeletPodsDir(dir), o.podUid).serialSocket(o.vmiUid));
  const socket = connect(serial.procPath);
  const found = (text: string): boolean =>
    typeof o.until === 'string' ? text.includes(o.until) : o.until.test(text);
  try {
    return await new Promise<string>((resolve, reject) => {
      let text = '';
      let listening = o.send === undefined;
      const timer = setTimeout(() => {
        reject(
          new Error(
            `no ${String(o.until)} on the serial console within ${o.timeoutMs} ms:\n${text.slice(-2000)}`,
          ),
        );
      }, o.timeoutMs);
      socket.once('connect', () => {
        if (o.send === undefined) return;
        // Drop the replayed history: only the answer to this line counts.
        setTimeout(() => {
          text = '';
          listening = true;
          socket.write(`${o.send ?? ''}\n`);
        }, 300);
      });
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        if (listening && found(text)) {
          clearTimeout(timer);
          resolve(text);
        }
      });
      socket.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
  } finally {
    socket.destroy();
    await serial.close();
  }
}
