/** Test doubles that record what the reflector and informer do. */
import { FakeClock } from '../../clock.ts';
import type { GroupVersionResource, KubeObject } from '../../kube/types.ts';
import type { ReflectorSink } from '../reflector.ts';

export const TEST_GVR: GroupVersionResource = {
  group: '',
  version: 'v1',
  resource: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
};

/** A FakeClock that records every sleep() duration (the reflector's backoff waits). */
export class RecordingClock extends FakeClock {
  readonly sleeps: number[] = [];
  override sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    return super.sleep(ms, signal);
  }
}

const tag = (o: KubeObject): string => `${o.metadata.name ?? ''}@${o.metadata.resourceVersion ?? ''}`;

/** A sink that records calls as short strings: 'replace a@1,b@2 rv=10', 'add c@11', ... */
export class RecordingSink<T extends KubeObject> implements ReflectorSink<T> {
  readonly calls: string[] = [];
  replace(items: T[], resourceVersion: string): void {
    this.calls.push(`replace ${items.map(tag).join(',')} rv=${resourceVersion}`);
  }
  add(obj: T): void {
    this.calls.push(`add ${tag(obj)}`);
  }
  update(obj: T): void {
    this.calls.push(`update ${tag(obj)}`);
  }
  delete(obj: T): void {
    this.calls.push(`delete ${tag(obj)}`);
  }
}
