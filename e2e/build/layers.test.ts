/**
 * scripts/check-layers.mjs (run by npm test) on planted trees: each rule of the README's Layout fails with the
 * offending file and import named, and a clean tree passes. It also passes on this checkout.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SCRIPT = join(REPO, 'scripts/check-layers.mjs');
let dirs: string[] = [];

afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

/** A tree of files (path → import specifier, or '' for a file with no import), checked. */
function check(tree: Record<string, string>): { status: number | null; stderr: string } {
  const root = mkdtempSync(join(tmpdir(), 'kv-layers-'));
  dirs.push(root);
  for (const [file, spec] of Object.entries(tree)) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), spec === '' ? 'export const x = 1;\n' : `import { x } from '${spec}';\n`);
  }
  const r = spawnSync(process.execPath, [SCRIPT, '--root', root], { encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr };
}

describe('the layer check', () => {
  // [file, its import, the rule the message names]; the imported file is planted too.
  it.each<[string, string, string]>([
    ['lib/handler/vmi.ts', '../launcher/role.ts', 'roles never import roles (lib/handler → lib/launcher)'],
    [
      'lib/apiserver/x.test.ts',
      '../controller/a.ts',
      'roles never import roles (lib/apiserver → lib/controller)',
    ],
    ['lib/kernel/clock.ts', '../kubevirt/index.ts', 'lib/kernel imports only lib/kernel'],
    ['lib/kernel/runtime/role.ts', '../../controller/role.ts', 'lib/kernel imports only lib/kernel'],
    [
      'lib/kubevirt/labels.ts',
      '../rpc/index.ts',
      'lib/kubevirt imports only lib/kubevirt, lib/kernel, lib/rename',
    ],
    ['lib/rename/names.ts', '../kubevirt/gvr.ts', 'lib/rename imports only lib/rename, lib/kernel'],
    ['lib/libvirt/host.ts', '../rpc/index.ts', 'lib/libvirt imports only lib/libvirt, lib/kernel'],
    [
      'lib/network/namescheme.ts',
      '../rpc/index.ts',
      'lib/network imports only lib/network, lib/kernel, lib/kubevirt',
    ],
    [
      'lib/network/link-names.ts',
      '../launcher/role.ts',
      'lib/network imports only lib/network, lib/kernel, lib/kubevirt',
    ],
    [
      'lib/kubevirt/networks.ts',
      '../network/namescheme.ts',
      'lib/kubevirt imports only lib/kubevirt, lib/kernel, lib/rename',
    ],
    ['lib/handler/sync.ts', '../rpc/gen/cmd.ts', 'lib/rpc/gen is private to lib/rpc'],
    [
      'lib/handler/vmi/sync.ts',
      '../device-plugins/gen/v1beta1/api.ts',
      'lib/handler/device-plugins/gen is private to lib/handler/device-plugins',
    ],
    ['lib/controller/start.ts', '../../testenv/handle.ts', 'lib/controller imports nothing from testenv/'],
    ['lib/controller/ha.itest.ts', '../../e2e/local/cluster.ts', 'lib/controller imports nothing from e2e/'],
    ['lib/handler/testing/node.ts', '../../../e2e/local/cluster.ts', 'lib/handler imports nothing from e2e/'],
    [
      'lib/handler/vmi.itest.ts',
      '../controller/testing/cluster.ts',
      'roles never import roles (lib/handler → lib/controller)',
    ],
    ['testenv/cluster.ts', '../e2e/local/state.ts', 'testenv imports only lib/ and testenv/'],
    ['testenv/guests/guests.ts', '../../bench/run.ts', 'testenv imports only lib/ and testenv/'],
    ['lib/controller/x.ts', '../misc/util.ts', 'lib/misc is not a layer the README draws'],
    [
      'lib/controller/x.ts',
      '@kubernetes/client-node',
      'nothing may: lib/kernel/kube loads kubeconfigs itself',
    ],
    [
      'lib/kernel/kube/config.ts',
      '@kubernetes/client-node',
      'nothing may: lib/kernel/kube loads kubeconfigs itself',
    ],
    ['lib/kernel/kube/http-transport.ts', 'undici', 'only tests may: roles send HTTP over node:http'],
    ['cmd/rewriter.ts', 'undici', 'only tests may: roles send HTTP over node:http'],
  ])('%s importing %s fails: %s', (file, spec, rule) => {
    const target = spec.startsWith('.') ? posix.join(posix.dirname(file), spec) : 'lib/kernel/kube/x.ts';
    const r = check({ [file]: spec, [target]: '' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${file}: imports ${spec} (${rule})`);
  });

  it('passes a tree that follows the layout', () => {
    const r = check({
      'lib/kernel/clock.ts': '../version/version.ts',
      'lib/version/version.ts': '',
      'lib/rename/index.ts': '../kernel/clock.ts',
      'lib/kubevirt/index.ts': '../rename/index.ts',
      'lib/rpc/index.ts': './gen/kubevirt/cmd/v1/cmd.ts',
      'lib/rpc/gen/kubevirt/cmd/v1/cmd.ts': '',
      'lib/rpc/layout.ts': '../kubevirt/index.ts',
      'lib/libvirt/host.ts': '../kernel/clock.ts',
      'lib/network/namescheme.ts': '../kubevirt/index.ts',
      'lib/network/link-names.ts': './namescheme.ts',
      'lib/handler/vmi.ts': '../rpc/index.ts',
      'lib/handler/vmi.itest.ts': '../../testenv/cluster.ts',
      'lib/handler/testing/node.ts': '../../../testenv/guests/guests.ts',
      'testenv/guests/guests.ts': '../cluster.ts',
      'testenv/cluster.ts': '../lib/operator/apply/install-crds.ts',
      'e2e/local/cluster.ts': '../../testenv/cluster.ts',
      'lib/operator/apply/install-crds.ts': '../../kernel/clock.ts',
      'cmd/handler.ts': '../lib/handler/vmi.ts',
      'bench/handler.bench.ts': '../lib/launcher/role.ts',
      'lib/launcher/role.ts': '../network/link-names.ts',
      // Tests and test helpers may use undici as a client.
      'lib/rewriter/proxy/webhook.test.ts': 'undici',
      'lib/rewriter/proxy/testing/harness.ts': 'undici',
      'bench/api.bench.ts': 'undici',
    });
    expect(r).toEqual({ status: 0, stderr: '' });
  });

  it('passes on this checkout', () => {
    const r = spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
