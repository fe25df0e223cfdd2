/** Which node an event wakes in the evacuation controller, and the creations it counts as seen. */
import { beforeEach, describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance, VirtualMachineInstanceMigration } from '../../kubevirt/index.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import { FakeClock } from '../../kernel/clock.ts';
import { ControllerExpectations } from '../../kernel/controller/expectations.ts';
import type { EventHandler } from '../../kernel/informer/informer.ts';
import { Store } from '../../kernel/informer/store.ts';
import type { KubeObject } from '../../kernel/kube/types.ts';
import { pod, podReady, T0, vmi, withPodPhase } from '../../kubevirt/testing/objects.ts';
import { migration, withMigrationAnnotation } from '../migration/testing/migrations.ts';
import type { Caches } from '../registry.ts';
import { EVACUATION_WATCHES, watchForEvacuations } from './handlers.ts';

type Handlers = Record<string, EventHandler<KubeObject>>;

let woken: string[];
let handlers: Handlers;
let expectations: ControllerExpectations;
let vmis: Store<VirtualMachineInstance>;

/** Informers that only keep their handler and store: enough for watchForEvacuations. */
function fakeCaches(): Caches<typeof EVACUATION_WATCHES> {
  const fake = (name: string, store: unknown): unknown => ({
    store,
    addEventHandler: (h: EventHandler<KubeObject>): void => {
      handlers[name] = h;
    },
  });
  return {
    nodes: fake('nodes', new Store()),
    vmis: fake('vmis', vmis),
    migrations: fake('migrations', new Store()),
    pods: fake('pods', new Store()),
    kubevirts: fake('kubevirts', new Store()),
  } as unknown as Caches<typeof EVACUATION_WATCHES>;
}

const on = (name: string): EventHandler<KubeObject> => {
  const h = handlers[name];
  if (h === undefined) throw new Error(`no ${name} handler`);
  return h;
};

beforeEach(() => {
  woken = [];
  handlers = {};
  expectations = new ControllerExpectations(new FakeClock(T0));
  vmis = new Store({ freeze: true });
  vmis.add(vmi((v) => (v.status = { nodeName: 'node01' })));
  watchForEvacuations(fakeCaches(), expectations, (n) => woken.push(n));
});

describe('watchForEvacuations', () => {
  it('a Node wakes itself', () => {
    on('nodes').onUpdate?.({ metadata: { name: 'node01' } }, { metadata: { name: 'node01' } });
    expect(woken).toEqual(['node01']);
  });

  it('a VMI wakes the node it runs on; one that runs nowhere wakes none', () => {
    on('vmis').onAdd?.(vmi((v) => (v.status = { nodeName: 'node02' })));
    on('vmis').onAdd?.(vmi());
    expect(woken).toEqual(['node02']);
  });

  it('a new evacuation migration counts as seen for its node and wakes it', () => {
    expectations.expectCreations('node03', 1);
    on('migrations').onAdd?.(migration(withMigrationAnnotation('kubevirt.io/evacuationMigration', 'node03')));
    expect(expectations.satisfiedExpectations('node03')).toBe(true);
    expect(woken).toEqual(['node03']);
  });

  it("another migration, and any migration's update, wake its VMI's node", () => {
    const m: VirtualMachineInstanceMigration = migration();
    on('migrations').onAdd?.(m);
    on('migrations').onUpdate?.(m, m);
    on('migrations').onAdd?.(migration((x) => (x.spec.vmiName = 'gone')));
    expect(woken).toEqual(['node01', 'node01']);
  });

  it("a VMI's Pod that goes down or away wakes the VMI's node; one that stays up does not", () => {
    const up: Pod = pod(podReady('node01'));
    on('pods').onUpdate?.(up, up);
    on('pods').onUpdate?.(up, pod(podReady('node01'), withPodPhase('Failed')));
    on('pods').onDelete?.(up);
    expect(woken).toEqual(['node01', 'node01']);
  });
});
