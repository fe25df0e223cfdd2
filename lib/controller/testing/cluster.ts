/**
 * Integration-test support: the test cluster (testenv/cluster.ts: CRDs, a fresh namespace, a direct
 * client seeing internal names), a client speaking kubevirt.io through the rename rules in-process, the
 * controllers running on that namespace, and a fake kubelet's moves (bind a Pod, report it ready, fail it,
 * force-delete it). There is no kube-controller-manager: nothing garbage-collects, so what KubeVirt leaves to
 * GC the tests delete, and a namespace stays Terminating after the test. KV_CONTROLLER_TEST_LOG=1 prints the
 * controllers' logs.
 */
import { Registry } from 'prom-client';
import { testCluster, type TestCluster } from '../../../testenv/cluster.ts';
import { isNotFound } from '../../kernel/errors/errors.ts';
import { PODS } from '../../kernel/kube/index.ts';
import type { KubeClient } from '../../kernel/kube/index.ts';
import { createLogger, nopLogger, type Logger } from '../../kernel/log/log.ts';
import { buildRuleIndex, KUBEVIRT_REWRITE_RULES } from '../../rename/index.ts';
import { rewritingClient } from '../../rename/client/index.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import { VIRTUAL_MACHINE_INSTANCES } from '../../kubevirt/gvr.ts';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { waitFor } from '../../kernel/testing/wait.ts';
import { startControllers, type RunningControllers } from '../start.ts';

export interface ControllerEnv extends TestCluster {
  /** Speaks kubevirt.io. */
  kv: KubeClient;
  registry: Registry;
  controllers: RunningControllers;
}

export interface EnvOptions {
  workers?: number;
  log?: Logger;
  /** Client-side QPS towards the API server (0: no limit). */
  qps?: number;
  /** The controllers see Pods of every namespace (the rest of the test namespace only). */
  podsInAllNamespaces?: boolean;
  /** The informers' resync period (default the role's). */
  resyncPeriodMs?: number;
}

export async function startControllerEnv(prefix: string, opts: EnvOptions = {}): Promise<ControllerEnv> {
  const c = await testCluster(prefix, {
    userAgent: 'kubevirt-ts/controller-itest',
    ...(opts.qps !== undefined && { qps: opts.qps }),
  });
  const kv = rewritingClient(c.direct, buildRuleIndex(KUBEVIRT_REWRITE_RULES));
  const registry = new Registry();
  const ac = new AbortController();
  const controllers = startControllers({
    client: kv,
    namespace: c.ns,
    ...(opts.podsInAllNamespaces !== undefined && { podsInAllNamespaces: opts.podsInAllNamespaces }),
    ...(opts.resyncPeriodMs !== undefined && { resyncPeriodMs: opts.resyncPeriodMs }),
    workers: opts.workers ?? 4,
    log:
      opts.log ??
      (process.env['KV_CONTROLLER_TEST_LOG'] === '1'
        ? createLogger({ component: 'controller-itest', verbosity: 2 })
        : nopLogger),
    registry,
    signal: ac.signal,
    launcher: { image: 'registry.example/kubevirt-ts/virt:test' },
  });
  c.onClose(async () => {
    ac.abort();
    await controllers.done;
  });
  await controllers.ready;
  return Object.assign(c, { kv, registry, controllers });
}

/** What a kubelet would do to a launcher Pod, done by hand. */
export class FakeKubelet {
  constructor(
    private readonly client: KubeClient,
    private readonly ns: string,
  ) {}

  async bind(pod: Pod, node: string): Promise<void> {
    await this.client.request({
      method: 'POST',
      path: `/api/v1/namespaces/${this.ns}/pods/${pod.metadata.name ?? ''}/binding`,
      body: {
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name: pod.metadata.name },
        target: { kind: 'Node', name: node },
      },
    });
  }

  /** Running, its (first) container started, PodScheduled and Ready true. */
  async ready(pod: Pod): Promise<void> {
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    await this.status(pod, {
      phase: 'Running',
      conditions: [
        { type: 'PodScheduled', status: 'True', lastTransitionTime: now },
        { type: 'Ready', status: 'True', lastTransitionTime: now },
      ],
      containerStatuses: [
        {
          name: pod.spec.containers[0]?.name ?? 'compute',
          ready: true,
          restartCount: 0,
          image: pod.spec.containers[0]?.image ?? '',
          imageID: '',
          state: { running: { startedAt: now } },
        },
      ],
    });
  }

  async fail(pod: Pod): Promise<void> {
    await this.status(pod, { phase: 'Failed' });
  }

  /** Deletes the Pod at once, as a kubelet finishing its grace period would. */
  async remove(pod: Pod): Promise<void> {
    await this.client
      .delete(PODS, pod.metadata.name ?? '', { namespace: this.ns, gracePeriodSeconds: 0 })
      .catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
  }

  private async status(pod: Pod, status: Record<string, unknown>): Promise<void> {
    await this.client.patch(
      PODS,
      pod.metadata.name ?? '',
      { status },
      { namespace: this.ns, subresource: 'status', type: 'merge' },
    );
  }
}

/** The VMI `name` of the env's namespace, or undefined while (or once) there is none. */
export async function vmiOf(env: ControllerEnv, name: string): Promise<VirtualMachineInstance | undefined> {
  try {
    return await env.kv.get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, name, { namespace: env.ns });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** Waits until the VMI `name` exists and `pred` holds for it; the timeout names `what`. */
export const vmiWhere = (
  env: ControllerEnv,
  name: string,
  what: string,
  pred: (v: VirtualMachineInstance) => boolean,
): Promise<VirtualMachineInstance> =>
  waitFor(async () => {
    const v = await vmiOf(env, name);
    return v !== undefined && pred(v) ? v : undefined;
  }, `VMI ${name}: ${what}`);
