/**
 * SSH public keys for cloud-init meta-data (kubevirt pkg/cloud-init resolveSSHPublicKeys): every file of the
 * secret of each accessCredentials[].sshPublicKey propagated by noCloud (or configDrive), which the Pod mounts
 * at `<private>/secret/<secretName>-access-cred`, numbered "0", "1", ... in credential and file-name order;
 * empty files are skipped. Pure (the mount is read through SourceFs).
 */
import path from 'node:path';
import {
  accessCredentialDir,
  accessCredentialSecrets,
  type VirtualMachineInstance,
} from '../../kubevirt/index.ts';
import type { PodLayout } from '../../rpc/index.ts';
import { ConfigDiskError, isAtomicWriterEntry, type SourceFs } from './image.ts';

export interface SshKeyOptions {
  readonly vmi: VirtualMachineInstance;
  /** Where the launcher Pod mounts the config volumes (lib/rpc/pod-layout.ts). */
  readonly layout: Pick<PodLayout, 'configVolumeDir'>;
  readonly fs: SourceFs;
  readonly method: 'noCloud' | 'configDrive';
}

function keysIn(dir: string, field: string, fs: SourceFs): string[] {
  const names = fs.list(dir);
  if (names === undefined) throw new ConfigDiskError(field, `the secret is not mounted: no directory ${dir}`);
  const out: string[] = [];
  for (const name of names) {
    const p = path.join(dir, name);
    if (isAtomicWriterEntry(name) || !fs.isFile(p)) continue;
    const text = fs.read(p)?.toString('utf8');
    if (text === undefined) throw new ConfigDiskError(field, `cannot read ${p}`);
    if (text !== '') out.push(text);
  }
  return out;
}

export function sshPublicKeys(o: SshKeyOptions): Record<string, string> {
  const keys: string[] = [];
  for (const cred of accessCredentialSecrets(o.vmi.spec)) {
    if (cred.kind !== 'sshPublicKey' || !cred.propagation.has(o.method)) continue;
    const dir = o.layout.configVolumeDir('secret', accessCredentialDir(cred.secretName));
    keys.push(...keysIn(dir, `spec.accessCredentials[${cred.index}].sshPublicKey.source.secret`, o.fs));
  }
  return Object.fromEntries(keys.map((k, i) => [String(i), k]));
}
