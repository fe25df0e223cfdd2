/**
 * The fixture of the local-cluster VM tests: the cluster (brought up when it is not), the kubevirt.io and direct
 * clients, a fresh namespace, the controller in this process for that namespace and, when asked, the handler as
 * a host process for node local. Registers its own beforeAll/afterAll; read the fields inside tests.
 */
import { afterAll, beforeAll } from '@jest/globals';
import { NAMESPACES } from '../../../lib/kernel/kube/index.ts';
import { newNamespaceName } from '../../../testenv/handle.ts';
import { deleteNamespace, prepareForVirt, virtClients, type VirtClients } from '../virt.ts';
import { useLocalCluster, type TestCluster } from './cluster.ts';
import { controllerHere, spawnHandler, stopHandler, type HandlerProcess, type Running } from './roles.ts';

export interface VirtSuite {
  readonly c: TestCluster;
  readonly clients: VirtClients;
  readonly ns: string;
  /** The handler process (undefined without `handler`); tests may replace it (kill -9 and start again). */
  handler: HandlerProcess | undefined;
  /** The extra flags the handler was started with. */
  readonly handlerFlags: readonly string[];
}

export interface VirtSuiteOptions {
  readonly handler: boolean;
  /** Extra handler flags, made once the cluster is up (its stack dir given). */
  readonly handlerFlags?: (dir: string) => Promise<string[]>;
  /** Runs once the namespace is gone, before the handler stops and the cluster is released (which may take it down). */
  readonly cleanup?: (clients: VirtClients) => Promise<void>;
}

export function virtSuite(prefix: string, o: VirtSuiteOptions): VirtSuite {
  let c: TestCluster | undefined;
  let clients: VirtClients | undefined;
  let controller: Running | undefined;
  let handlerFlags: string[] = [];
  const ns = newNamespaceName(prefix);
  const ready = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error(`the ${prefix} suite is not set up`);
    return v;
  };
  const suite: VirtSuite = {
    get c() {
      return ready(c);
    },
    get clients() {
      return ready(clients);
    },
    ns,
    handler: undefined,
    get handlerFlags() {
      return handlerFlags;
    },
  };
  beforeAll(async () => {
    c = await useLocalCluster();
    clients = virtClients(c.kubeconfig, `kubevirt-ts/${prefix}-itest`);
    await prepareForVirt(clients);
    await clients.direct.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    controller = controllerHere(c.kubeconfig, ns);
    if (!o.handler) return;
    handlerFlags = (await o.handlerFlags?.(c.dir)) ?? [];
    suite.handler = spawnHandler(c.kubeconfig, c.dir, handlerFlags);
  }, 1_200_000);

  afterAll(async () => {
    // While the controller (and the handler) still run, so that they finish what the namespace holds.
    if (clients !== undefined) {
      await deleteNamespace(clients, ns, 120_000);
      await o.cleanup?.(clients);
    }
    if (suite.handler !== undefined) await stopHandler(suite.handler);
    await controller?.stop();
    await clients?.close();
    await c?.release();
  }, 300_000);
  return suite;
}
