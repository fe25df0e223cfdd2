import { describe, expect, it } from '@jest/globals';
import { libvirtLayout } from '../libvirt/daemon/layout.ts';
import { podLayout } from '../rpc/index.ts';

// The controller mounts the backend-storage PVC where the Pod layout says swtpm keeps its state; the launcher's
// libvirt decides where swtpm really keeps it. Both must name the same directories.
describe('the Pod layout and the launcher libvirt layout', () => {
  it.each(['/', '/tmp/kvl-abcdef'])('agree on where swtpm keeps its state under %s', (root) => {
    const pod = podLayout(root);
    const lv = libvirtLayout(root);
    expect([pod.swtpmStateDir, pod.swtpmLocalCaDir]).toEqual([lv.swtpmStorageDir, lv.swtpmLocalCaDir]);
    expect(pod.libvirtRuntimeDir).toBe(lv.run);
  });
});
