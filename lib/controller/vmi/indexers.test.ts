import { describe, expect, it } from '@jest/globals';
import { Store } from '../../kernel/informer/store.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import { pod, vmi, type Option } from '../../kubevirt/testing/objects.ts';
import { attachmentPod } from '../testing/storage-fixtures.ts';
import {
  attachmentPodsOfLauncher,
  ownerPodUidIndex,
  podsOfVmi,
  vmiIndexers,
  vmiUidIndex,
} from './indexers.ts';

const inNamespace =
  (ns: string): Option<Pod> =>
  (p) => {
    p.metadata.namespace = ns;
  };
const named =
  (name: string): Option<Pod> =>
  (p) => {
    p.metadata.name = name;
    p.metadata.uid = `uid-${name}`;
  };
const withoutOwner: Option<Pod> = (p) => {
  delete p.metadata.ownerReferences;
};
const notController: Option<Pod> = (p) => {
  for (const r of p.metadata.ownerReferences ?? []) r.controller = false;
};

describe('Pod owner indexes: namespace/uid of the controller', () => {
  it.each<[string, Pod, string[], string[]]>([
    ['a launcher Pod', pod(), ['default/vmi-uid-1'], []],
    ['a launcher Pod in another namespace', pod(inNamespace('b')), ['b/vmi-uid-1'], []],
    ['an attachment Pod', attachmentPod('hp-a', ['hp']), [], ['default/pod-uid-1']],
    ['an attachment Pod elsewhere', attachmentPod('hp-a', ['hp'], inNamespace('b')), [], ['b/pod-uid-1']],
    ['no owner', pod(withoutOwner), [], []],
    ['an owner that is not the controller', pod(notController), [], []],
  ])('%s', (_n, p, byVmi, byPod) => {
    expect(vmiUidIndex(p)).toEqual(byVmi);
    expect(ownerPodUidIndex(p)).toEqual(byPod);
  });
});

describe('podsOfVmi / attachmentPodsOfLauncher', () => {
  const store = new Store<Pod>({ indexers: vmiIndexers });
  const launcher = pod();
  const impostor = pod(named('impostor'), inNamespace('b'));
  const attached = attachmentPod('hp-a', ['hp']);
  const foreign = attachmentPod('hp-b', ['hp'], inNamespace('b'));
  for (const p of [launcher, impostor, attached, foreign]) store.add(p);

  it("a Pod of another namespace naming the VMI's uid is not the VMI's", () => {
    expect(podsOfVmi(store, vmi()).map((p) => p.metadata.name)).toEqual([launcher.metadata.name]);
  });

  it("an attachment Pod of another namespace naming the launcher Pod's uid is not the launcher's", () => {
    expect(attachmentPodsOfLauncher(store, launcher).map((p) => p.metadata.name)).toEqual(['hp-a']);
  });

  it('nothing without an owner uid', () => {
    expect(
      podsOfVmi(
        store,
        vmi((v) => delete v.metadata.uid),
      ),
    ).toEqual([]);
    expect(attachmentPodsOfLauncher(store, undefined)).toEqual([]);
  });
});
