import { beforeEach, describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { FakeClock } from '../../kernel/clock.ts';
import { fieldIndex, labelIndex } from '../../kernel/informer/index-funcs.ts';
import { Store } from '../../kernel/informer/store.ts';
import type { KubeObject } from '../../kernel/kube/types.ts';
import { nopLogger } from '../../kernel/log/log.ts';
import { MemoryRecorder } from '../../kernel/controller/events.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import { pod, T0, vmi, withPhase } from '../../kubevirt/testing/objects.ts';
import { RecordingClient } from '../../kernel/kube/testing/recording-client.ts';
import { BY_NODE, NodeController } from './controller.ts';

const ctx = { log: nopLogger, reconcileID: 't' };
let client: RecordingClient;
let nodes: Store<KubeObject>;
let vmis: Store<VirtualMachineInstance>;
let pods: Store<Pod>;
let recorder: MemoryRecorder;
let c: NodeController;

beforeEach(() => {
  client = new RecordingClient();
  recorder = new MemoryRecorder();
  nodes = new Store<KubeObject>({ freeze: true });
  vmis = new Store<VirtualMachineInstance>({
    freeze: true,
    indexers: { [BY_NODE]: labelIndex('kubevirt.io/nodeName') },
  });
  pods = new Store<Pod>({ freeze: true, indexers: { [BY_NODE]: fieldIndex('spec.nodeName') } });
  c = new NodeController({ client, nodes, vmis, pods, clock: new FakeClock(T0), recorder });
});

const node = (heartbeat: string, schedulable = 'true'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: {
    name: 'n1',
    resourceVersion: '5',
    labels: { 'kubevirt.io/schedulable': schedulable },
    annotations: { 'kubevirt.io/heartbeat': heartbeat },
  },
});
const onN1 = (
  name: string,
  uid: string,
  ...o: ((v: VirtualMachineInstance) => void)[]
): VirtualMachineInstance =>
  vmi(
    (v) => {
      v.metadata.name = name;
      v.metadata.uid = uid;
      v.metadata.labels = { 'kubevirt.io/nodeName': 'n1' };
      v.status = { nodeName: 'n1' };
    },
    ...o,
  );

describe('NodeController', () => {
  it('stale heartbeat: node made unschedulable, VMIs without a live launcher failed, rechecked later', async () => {
    nodes.add(node('2025-12-31T23:00:00Z'));
    vmis.add(onN1('stuck', 'u1', withPhase('Running')));
    vmis.add(onN1('alive', 'u2', withPhase('Running')));
    vmis.add(onN1('done', 'u3', withPhase('Succeeded')));
    pods.add(
      pod(
        (p) => ((p.metadata.ownerReferences ?? [])[0]!.uid = 'u2'),
        (p) => (p.spec.nodeName = 'n1'),
      ),
    );
    await expect(c.reconcile('n1', ctx)).resolves.toEqual({ requeueAfterMs: 60_000 });
    expect(client.log).toEqual(['patch nodes /n1', 'patch virtualmachineinstances default/stuck']);
    expect(client.actions[0]?.body).toEqual({
      metadata: { labels: { 'kubevirt.io/schedulable': 'false' }, resourceVersion: '5' },
    });
    expect(client.actions[1]?.body).toMatchObject({
      status: { phase: 'Failed', reason: 'NodeUnresponsive' },
    });
    expect(recorder.events.map((e) => `${e.kind} ${e.reason}`)).toEqual([
      'Node NodeUnresponsive',
      'VirtualMachineInstance NodeUnresponsive',
    ]);
  });

  it('already unschedulable: only the VMIs', async () => {
    nodes.add(node('2025-12-31T23:00:00Z', 'false'));
    vmis.add(onN1('stuck', 'u1', withPhase('Scheduled')));
    await c.reconcile('n1', ctx);
    expect(client.log).toEqual(['patch virtualmachineinstances default/stuck']);
  });

  it('fresh heartbeat: nothing written', async () => {
    nodes.add(node('2025-12-31T23:59:00Z'));
    vmis.add(onN1('fine', 'u1', withPhase('Running')));
    await c.reconcile('n1', ctx);
    expect(client.log).toEqual([]);
  });

  it('node deleted: its VMIs fail, no recheck', async () => {
    vmis.add(onN1('orphan', 'u1', withPhase('Running')));
    await expect(c.reconcile('n1', ctx)).resolves.toBeUndefined();
    expect(client.log).toEqual(['patch virtualmachineinstances default/orphan']);
  });
});
