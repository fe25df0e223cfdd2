import { describe, expect, it } from '@jest/globals';
import { FakeClock } from '../clock.ts';
import type { KubeObject } from '../kube/types.ts';
import { nopLogger } from '../log/log.ts';
import { flush } from '../informer/testing/fake-client.ts';
import { RecordingClient } from '../kube/testing/recording-client.ts';
import { ApiEventRecorder } from './events.ts';

const vm = (name: string): KubeObject => ({
  apiVersion: 'kubevirt.io/v1',
  kind: 'VirtualMachine',
  metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: '3' },
});

/** A client whose creates stay pending until release() is called. */
class SlowClient extends RecordingClient {
  private releases: (() => void)[] = [];
  override create<T extends KubeObject>(...args: Parameters<RecordingClient['create']>): Promise<T> {
    const done = super.create(...args) as Promise<T>;
    return new Promise((resolve, reject) => {
      this.releases.push(() => {
        done.then(resolve, reject);
      });
    });
  }
  release(): void {
    for (const r of this.releases.splice(0)) r();
  }
}

describe('ApiEventRecorder', () => {
  it('writes a core/v1 Event about the object', async () => {
    const client = new RecordingClient();
    const r = new ApiEventRecorder({
      client,
      component: 'virtualmachine-controller',
      clock: new FakeClock(Date.parse('2026-01-01T00:00:00Z')),
      log: nopLogger,
    });
    r.event(vm('a'), 'Normal', 'SuccessfulCreate', 'Started the virtual machine');
    await flush();
    expect(client.log).toHaveLength(1);
    expect(client.log[0]).toMatch(/^create events ns\/a\.[0-9a-f]{16}$/);
    expect(client.actions[0]?.body).toMatchObject({
      involvedObject: {
        apiVersion: 'kubevirt.io/v1',
        kind: 'VirtualMachine',
        name: 'a',
        namespace: 'ns',
        uid: 'uid-a',
        resourceVersion: '3',
      },
      type: 'Normal',
      reason: 'SuccessfulCreate',
      message: 'Started the virtual machine',
      source: { component: 'virtualmachine-controller' },
      firstTimestamp: '2026-01-01T00:00:00Z',
      count: 1,
    });
  });

  it('writes the same event for the same object once per window', async () => {
    const client = new RecordingClient();
    const clock = new FakeClock(0);
    const r = new ApiEventRecorder({ client, component: 'c', clock, log: nopLogger, dedupWindowMs: 1000 });
    r.event(vm('a'), 'Warning', 'FailedCreate', 'quota');
    r.event(vm('a'), 'Warning', 'FailedCreate', 'quota');
    r.event(vm('b'), 'Warning', 'FailedCreate', 'quota');
    r.event(vm('a'), 'Warning', 'FailedCreate', 'other');
    clock.advance(1000);
    r.event(vm('a'), 'Warning', 'FailedCreate', 'quota');
    await flush();
    expect(client.actions).toHaveLength(4);
  });

  it('keeps at most maxInFlight writes going and drops above maxQueued', async () => {
    const client = new SlowClient();
    const r = new ApiEventRecorder({
      client,
      component: 'c',
      clock: new FakeClock(0),
      log: nopLogger,
      maxInFlight: 2,
      maxQueued: 3,
    });
    for (let i = 0; i < 7; i++) r.event(vm(`v${i}`), 'Normal', 'R', 'm');
    expect(client.actions).toHaveLength(2);
    expect(r.pending).toBe(5);
    expect(r.dropped).toBe(2);
    client.release();
    await flush();
    expect(client.actions).toHaveLength(4);
    client.release();
    await flush();
    client.release();
    await flush();
    expect(client.actions).toHaveLength(5);
    expect(r.pending).toBe(0);
  });

  it('holds events while the controllers are busy, and sends them after a quiet second or maxDelayMs', async () => {
    const client = new RecordingClient();
    const clock = new FakeClock(0);
    let busy = true;
    const r = new ApiEventRecorder({
      client,
      component: 'c',
      clock,
      log: nopLogger,
      busy: () => busy,
      maxDelayMs: 2400,
    });
    r.event(vm('a'), 'Normal', 'R', 'm');
    clock.advance(1200);
    r.event(vm('b'), 'Normal', 'R', 'm');
    await flush();
    expect(client.actions).toHaveLength(0);
    clock.advance(1200); // a waited maxDelayMs (held events look again every 200 ms); b waits on
    await flush();
    expect(client.log.map((l) => l.split('/')[1]?.split('.')[0])).toEqual(['a']);
    busy = false;
    clock.advance(800);
    await flush();
    expect(client.actions).toHaveLength(1); // idle, but not yet for a quiet second
    clock.advance(200);
    await flush();
    expect(client.actions).toHaveLength(2);
    expect(r.pending).toBe(0);
  });
});
