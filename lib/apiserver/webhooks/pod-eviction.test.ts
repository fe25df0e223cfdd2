// The /pod-eviction-validate webhook end to end over a fake cluster: what it reads, the evacuation mark it
// writes (a dry run when the eviction is one) and KubeVirt's 429 answers.
import { describe, expect, it } from '@jest/globals';
import type { Pod } from '../../kubevirt/core/pod.ts';
import type { KubeVirt, VirtualMachineInstance } from '../../kubevirt/index.ts';
import { handleAdmission } from '../../kubevirt/admission/admit.ts';
import {
  onSpec,
  pod,
  podReady,
  vmi,
  withPhase,
  withVmiCondition,
  type Option,
} from '../../kubevirt/testing/objects.ts';
import { kubevirtCr, withConfig } from '../../kubevirt/validation/testing/kubevirts.ts';
import { WEBHOOKS } from '../../kubevirt/webhooks.ts';
import { FakeClock } from '../../kernel/clock.ts';
import { memoryLogger } from '../../kernel/log/log.ts';
import { admitters } from './admitters.ts';
import type { EvictionIo, EvictionRead } from './pod-eviction.ts';
import { fakeLookup } from './testing/admission.ts';

const PATH = WEBHOOKS.podEvictionLauncher.path;
const LAUNCHER = 'virt-launcher-testvm-abcde';
const TRIGGERED = 'Eviction triggered evacuation of VMI "default/testvm"';

const withDomain: Option<Pod> = (p) => {
  p.metadata.annotations = { 'kubevirt.io/domain': 'testvm' };
};
const launcher = pod(withDomain, podReady('node1'));
const hotplug = pod(podReady('node1'), (p) => {
  p.metadata.name = 'hp-volume-x';
  p.metadata.labels = { 'kubevirt.io': 'hotplug-disk' };
  p.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'Pod', name: LAUNCHER, uid: 'pod-uid-1' }];
});
const liveMigrate = onSpec((s) => (s.evictionStrategy = 'LiveMigrate'));
const runningVmi = (...opts: Option<VirtualMachineInstance>[]): VirtualMachineInstance =>
  vmi(
    withPhase('Running'),
    withVmiCondition('LiveMigratable', 'True'),
    (v) => ((v.status ??= {}).nodeName = 'node1'),
    ...opts,
  );

interface Cluster {
  readonly pods?: Readonly<Record<string, EvictionRead<Pod>>>;
  readonly vmi?: EvictionRead<VirtualMachineInstance>;
  readonly markFails?: string;
  readonly kubevirt?: KubeVirt;
}

interface Mark {
  readonly name: string;
  readonly node: string;
  readonly dryRun: boolean;
}

async function evict(
  c: Cluster,
  o: { name?: string; dryRun?: boolean; eviction?: Record<string, unknown> } = {},
): Promise<{ response: unknown; marks: Mark[] }> {
  const marks: Mark[] = [];
  const eviction: EvictionIo = {
    pod: (_ns, name) => Promise.resolve(c.pods?.[name]),
    vmi: () => Promise.resolve(c.vmi),
    markEvacuation: ({ name }, node, dryRun) => {
      if (c.markFails !== undefined) return Promise.reject(new Error(c.markFails));
      marks.push({ name, node, dryRun });
      return Promise.resolve();
    },
  };
  const table = admitters({
    clock: new FakeClock(0),
    uuid: () => 'u',
    isOwnServiceAccount: () => false,
    isHandlerServiceAccount: () => false,
    lookup: fakeLookup({ eviction, installKubeVirts: () => (c.kubevirt ? [c.kubevirt] : []) }),
    log: memoryLogger('virt-api').log,
  });
  const name = o.name ?? LAUNCHER;
  const body = JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'u1',
      kind: { group: 'policy', version: 'v1', kind: 'Eviction' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      subResource: 'eviction',
      name,
      namespace: 'default',
      operation: 'CREATE',
      userInfo: { username: 'system:serviceaccount:kube-system:drain' },
      object: {
        apiVersion: 'policy/v1',
        kind: 'Eviction',
        metadata: { name, namespace: 'default' },
        ...o.eviction,
      },
      ...(o.dryRun !== undefined && { dryRun: o.dryRun }),
    },
  });
  const a = await handleAdmission(table, PATH, body);
  if (a.code !== 200) throw new Error(`answered ${String(a.code)}`);
  return { response: a.body.response, marks };
}

const denied = (message: string): unknown => ({
  uid: 'u1',
  allowed: false,
  status: { code: 429, message },
});
const ALLOWED = { uid: 'u1', allowed: true };

describe('the pod eviction webhook', () => {
  it('marks a LiveMigrate VMI for evacuation from the Pod’s node and refuses with 429 and no reason', async () => {
    const got = await evict({ pods: { [LAUNCHER]: launcher }, vmi: runningVmi(liveMigrate) });
    expect(got).toEqual({
      response: denied(TRIGGERED),
      marks: [{ name: 'testvm', node: 'node1', dryRun: false }],
    });
  });

  it.each<[string, Parameters<typeof evict>[1]]>([
    ['the review is a dry run', { dryRun: true }],
    ['the Eviction’s deleteOptions ask for one', { eviction: { deleteOptions: { dryRun: ['All'] } } }],
  ])('marks as a dry run when %s', async (_name, o) => {
    const got = await evict({ pods: { [LAUNCHER]: launcher }, vmi: runningVmi(liveMigrate) }, o);
    expect(got.marks).toEqual([{ name: 'testvm', node: 'node1', dryRun: true }]);
    expect(got.response).toEqual(denied(TRIGGERED));
  });

  it('takes the cluster’s eviction strategy from the KubeVirt CR', async () => {
    const kubevirt = kubevirtCr(withConfig('evictionStrategy', 'LiveMigrate'));
    const withCluster = await evict({ pods: { [LAUNCHER]: launcher }, vmi: runningVmi(), kubevirt });
    expect(withCluster.marks).toHaveLength(1);
    const without = await evict({ pods: { [LAUNCHER]: launcher }, vmi: runningVmi() });
    expect(without).toEqual({ response: ALLOWED, marks: [] });
  });

  it.each<[string, Cluster, unknown]>([
    ['a Pod it cannot find', { vmi: runningVmi(liveMigrate) }, ALLOWED],
    ['a Pod it cannot read', { pods: { [LAUNCHER]: { error: 'timeout' } } }, ALLOWED],
    [
      'a VMI already marked',
      {
        pods: { [LAUNCHER]: launcher },
        vmi: runningVmi(liveMigrate, (v) => ((v.status ??= {}).evacuationNodeName = 'node1')),
      },
      denied(`Evacuation in progress: ${TRIGGERED}`),
    ],
    [
      'a mark that fails',
      { pods: { [LAUNCHER]: launcher }, vmi: runningVmi(liveMigrate), markFails: 'conflict' },
      denied('kubevirt failed marking the vmi for eviction: conflict'),
    ],
    [
      'a VMI it cannot read',
      { pods: { [LAUNCHER]: launcher }, vmi: { error: 'timeout' } },
      denied('kubevirt failed getting the vmi: timeout'),
    ],
  ])('%s', async (_name, c, want) => {
    const got = await evict(c);
    expect(got.response).toEqual(want);
    expect(got.marks).toEqual([]);
  });

  it('refuses to evict a hotplug-disk Pod of a live launcher, reading its owner', async () => {
    const got = await evict(
      { pods: { 'hp-volume-x': hotplug, [LAUNCHER]: launcher }, vmi: runningVmi() },
      { name: 'hp-volume-x' },
    );
    expect(got).toEqual({
      response: denied(
        'cannot evict hotplug pod: hp-volume-x associated with running vmi: testvm in namespace default',
      ),
      marks: [],
    });
    const ownerGone = await evict(
      { pods: { 'hp-volume-x': hotplug }, vmi: runningVmi() },
      { name: 'hp-volume-x' },
    );
    expect(ownerGone.response).toEqual(ALLOWED);
  });
});
