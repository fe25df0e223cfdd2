/**
 * VMI probes on the real local cluster, with the controller in this process and the handler as a host process
 * (kubevirt tests/network/probes.go, in the guest-agent form): the agent test guest's launcher Pod carries the
 * probes as `virt launcher probe` exec probes of its compute container, and the kubelet runs them there.
 * - a guestAgentPing readiness probe: the VMI is not Ready while its guest has not booted, and becomes Ready
 *   once the agent answers;
 * - an exec liveness probe whose command exits 3 in the guest: the kubelet reports it Unhealthy with the
 *   probe's line, kills the compute container, and the VMI ends in a final phase. KubeVirt's own test asks for
 *   a final phase, not Failed: the launcher stops the guest with ACPI on SIGTERM, and this guest powers off on
 *   the button, which the node reports as Succeeded.
 */
import { describe, expect, it } from '@jest/globals';
import {
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
  type VirtualMachine,
  type VirtualMachineInstance,
} from '../../lib/kubevirt/index.ts';
import type { Pod } from '../../lib/kubevirt/core/pod.ts';
import { EVENTS, PODS, type KubeObject } from '../../lib/kernel/kube/index.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import { virtSuite } from './testing/suite.ts';
import { agentVm } from './virt.ts';

const s = virtSuite('probes', { handler: true });

const getVmi = (name: string): Promise<VirtualMachineInstance> =>
  s.clients.kv.get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, name, { namespace: s.ns });

const condition = (v: VirtualMachineInstance, type: string): string | undefined =>
  v.status?.conditions?.find((c) => c.type === type)?.status;

async function launcherPod(vmiUid: string): Promise<Pod> {
  const selector = `kubevirt.io/created-by=${vmiUid}`;
  const pods = await s.clients.kv.list<Pod>(PODS, { namespace: s.ns, labelSelector: selector });
  const pod = pods.items[0];
  if (pod === undefined) throw new Error(`no launcher Pod for VMI ${vmiUid}`);
  return pod;
}

async function probedVm(name: string, probes: Record<string, object>): Promise<VirtualMachine> {
  const vm = await agentVm(s.ns, name);
  Object.assign(vm.spec.template.spec, probes);
  return vm;
}

type Event = KubeObject & { involvedObject?: { uid?: string }; reason?: string; message?: string };

describe('VMI probes on node local', () => {
  it('a guestAgentPing readiness probe makes the VMI Ready once the agent answers', async () => {
    const vm = await probedVm('ready', { readinessProbe: { guestAgentPing: {}, periodSeconds: 2 } });
    await s.clients.kv.create(VIRTUAL_MACHINES, vm);
    const first = await waitFor(() => getVmi('ready').catch(() => undefined), 'the VMI', {
      timeoutMs: 60_000,
    });
    expect(condition(first, 'Ready')).not.toBe('True');

    const pod = await waitFor(
      () => launcherPod(first.metadata.uid ?? '').catch(() => undefined),
      'the launcher Pod',
      { timeoutMs: 60_000 },
    );
    const compute = pod.spec.containers.find((c) => c.name === 'compute');
    expect(compute?.readinessProbe).toEqual({
      initialDelaySeconds: 10,
      timeoutSeconds: 2,
      periodSeconds: 2,
      successThreshold: 1,
      failureThreshold: 3,
      exec: {
        command: [
          'virt',
          'launcher',
          'probe',
          '--domainName',
          `${s.ns}_ready`,
          '--timeoutSeconds',
          '1',
          '--guestAgentPing',
        ],
      },
    });

    let seen: VirtualMachineInstance['status'];
    const ready = await waitFor(
      async () => {
        const v = await getVmi('ready');
        seen = v.status;
        return condition(v, 'Ready') === 'True' && v;
      },
      () => `the VMI Ready (phase ${String(seen?.phase)}, conditions ${JSON.stringify(seen?.conditions)})`,
      { timeoutMs: 300_000, intervalMs: 1000 },
    );
    expect(ready.status?.phase).toBe('Running');
    expect(condition(ready, 'AgentConnected')).toBe('True');

    await s.clients.kv.delete(VIRTUAL_MACHINES, 'ready', { namespace: s.ns });
    await waitFor(
      () =>
        getVmi('ready').then(
          () => false,
          () => true,
        ),
      'the VMI gone',
      { timeoutMs: 120_000 },
    );
  }, 600_000);

  it('an exec liveness probe whose command fails in the guest ends the VMI', async () => {
    const vm = await probedVm('live', {
      // Late enough for the guest and its agent to be up under TCG: the command itself must fail.
      livenessProbe: {
        exec: { command: ['/bin/sh', '-c', 'exit 3'] },
        initialDelaySeconds: 90,
        periodSeconds: 5,
        timeoutSeconds: 5,
        failureThreshold: 2,
      },
    });
    vm.spec.runStrategy = 'Once';
    await s.clients.kv.create(VIRTUAL_MACHINES, vm);
    const running = await waitFor(
      async () => {
        const v = await getVmi('live').catch(() => undefined);
        return v !== undefined && condition(v, 'AgentConnected') === 'True' && v;
      },
      'the VMI Running with its agent',
      { timeoutMs: 300_000, intervalMs: 1000 },
    );
    const uid = running.metadata.uid ?? '';
    const podUid = (await launcherPod(uid)).metadata.uid ?? '';

    const final = await waitFor(
      async () => {
        const v = await getVmi('live');
        const phase = v.status?.phase;
        return v.metadata.uid === uid && (phase === 'Failed' || phase === 'Succeeded') && v;
      },
      'the VMI in a final phase',
      { timeoutMs: 300_000, intervalMs: 1000 },
    );
    expect(final.metadata.uid).toBe(uid);
    const unhealthy = (await s.clients.direct.list<Event>(EVENTS, { namespace: s.ns })).items.filter(
      (e) => e.involvedObject?.uid === podUid && e.reason === 'Unhealthy',
    );
    expect(unhealthy.map((e) => e.message ?? '').join('\n')).toMatch(
      /Liveness probe failed: .*virt launcher probe: \/bin\/sh exited with code 3/,
    );
  }, 600_000);
});
