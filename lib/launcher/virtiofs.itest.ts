// virtiofs through the launcher, with this test as the launcher Pod's virtiofsd container: the Rust virtiofsd
// of the image build (e2e/local/image/build-virtiofsd.sh) runs as the daemons' user with no capabilities on a
// directory holding `hello`, listening where the launcher Pod's socket volume is; the launcher renders the
// VMI's filesystem on shared memory, and the agent guest mounts the tag and prints the file's first line.
import { describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { runCacheBuild } from '../../testenv/cache-build.ts';
import { GUEST_CMDLINE, VIRTIOFS_MARKER, virtiofsParam } from '../../testenv/guests/guests.ts';
import { daemonIdentity } from '../libvirt/daemon/identity.ts';
import { kernelBootVmi, REPO } from './testing/harness.ts';
import { launcherSuite } from './testing/suite.ts';

const UID = '5d1e0f3a-7b2c-4c9d-8e6f-0a1b2c3d4e5f';
const LINE = 'hello through virtiofsd';
const { launch } = launcherSuite(UID);

function startVirtiofsd(binary: string, socket: string, shared: string, log: string): ChildProcess {
  const id = daemonIdentity();
  const args = [
    ...['--reuid', String(id.uid), '--regid', String(id.gid), '--clear-groups', '--inh-caps=-all'],
    binary,
    `--socket-path=${socket}`,
    `--shared-dir=${shared}`,
    '--sandbox=none',
    '--cache=auto',
  ];
  const fd = openSync(log, 'a');
  const child = spawn('setpriv', args, { stdio: ['ignore', fd, fd] });
  closeSync(fd);
  return child;
}

describe('virtiofs through the launcher', () => {
  it('the agent guest mounts a filesystem an unprivileged virtiofsd serves and reads its file', async () => {
    const binary = join(
      await runCacheBuild(join(REPO, 'e2e/local/image/build-virtiofsd.sh')),
      'bin/virtiofsd',
    );
    const shared = mkdtempSync('/tmp/kv-virtiofs-');
    chmodSync(shared, 0o755);
    writeFileSync(join(shared, 'hello'), `${LINE}\n`, { mode: 0o644 });
    const l = await launch({ name: 'virtiofs', agent: true });
    // What the launcher Pod's socket volume is: a directory the virtiofsd's user writes to.
    const id = daemonIdentity();
    mkdirSync(l.paths.virtiofsDir, { recursive: true });
    chownSync(l.paths.virtiofsDir, id.uid, id.gid);
    const virtiofsd = startVirtiofsd(
      binary,
      join(l.paths.virtiofsDir, 'share.sock'),
      shared,
      join(l.root, 'virtiofsd.log'),
    );
    try {
      const vmi = kernelBootVmi({
        name: 'virtiofs',
        uid: UID,
        initrd: 'initramfs-agent.cpio.gz',
        cmdline: `${GUEST_CMDLINE} ${virtiofsParam('share')}`,
      });
      vmi.spec.domain.devices.filesystems = [{ name: 'share', virtiofs: {} }];
      vmi.spec.volumes = [{ name: 'share', persistentVolumeClaim: { claimName: 'share' } }];
      const sync = await l.client.syncVirtualMachine(vmi, {});
      expect(sync).toEqual({ success: true, message: '' });
      expect(readFileSync(join(l.root, 'launcher.log'), 'utf8')).not.toContain('not served');
      const text = await l.readSerial(`${VIRTIOFS_MARKER} share`, 90_000);
      expect(text).toContain(`${VIRTIOFS_MARKER} share ${LINE}`);
    } finally {
      virtiofsd.kill('SIGTERM');
      rmSync(shared, { recursive: true, force: true });
    }
  }, 240_000);
});
