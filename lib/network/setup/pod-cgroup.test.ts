import { describe, expect, it } from '@jest/globals';
import { podUidOfCgroup } from './pod-cgroup.ts';

const UID = '0f3c2a1e-5b6d-4e7f-8a9b-0c1d2e3f4a5b';
const UNDERSCORED = UID.replaceAll('-', '_');
const CID = 'a'.repeat(64);

describe('podUidOfCgroup', () => {
  it.each<[string, string, string | undefined]>([
    [
      'cgroupfs, v1',
      `4:memory:/kubepods/besteffort/pod${UID}/${CID}\n1:name=systemd:/kubepods/besteffort/pod${UID}/${CID}\n`,
      UID,
    ],
    ['cgroupfs, guaranteed QoS', `3:cpu,cpuacct:/kubepods/pod${UID}/${CID}\n`, UID],
    ['cgroupfs under a cgroup root', `5:devices:/kv-local/kubepods/burstable/pod${UID}/${CID}\n`, UID],
    [
      'systemd, v1',
      `6:pids:/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${UNDERSCORED}.slice/cri-containerd-${CID}.scope\n`,
      UID,
    ],
    ['systemd, v2', `0::/kubepods.slice/kubepods-pod${UNDERSCORED}.slice/cri-containerd-${CID}.scope\n`, UID],
    ['cgroupfs, v2', `0::/kubepods/burstable/pod${UID}/${CID}\n`, UID],
    ['a host process', '9:name=systemd:/\n8:pids:/\n0::/init.scope\n', undefined],
    ['a Pod-like name that is not a uid', '4:memory:/kubepods/besteffort/podnotauid/x\n', undefined],
    ['upper-case hex is not the kubelet’s', `0::/kubepods/pod${UID.toUpperCase()}/x\n`, undefined],
    ['empty text', '', undefined],
  ])('%s', (_, text, uid) => {
    expect(podUidOfCgroup(text)).toBe(uid);
  });
});
