/**
 * A typed reading of spec.accessCredentials (kept opaque in the schema, as KubeVirt's CRD does): the secret
 * each credential names and how it is propagated. The launcher Pod mounts each secret in a directory named
 * by accessCredentialDir, under /var/run/kubevirt-private/secret, where the launcher reads it.
 */
import type { VirtualMachineInstanceSpec } from './v1/vmi-spec.ts';

type Propagation = 'noCloud' | 'configDrive' | 'qemuGuestAgent';

export interface AccessCredentialSecret {
  /** Position in spec.accessCredentials. */
  readonly index: number;
  readonly kind: 'sshPublicKey' | 'userPassword';
  readonly secretName: string;
  readonly propagation: ReadonlySet<Propagation>;
}

interface Credential {
  source?: { secret?: { secretName?: string } };
  propagationMethod?: Partial<Record<Propagation, unknown>>;
}

/** Every credential backed by a secret, in spec order. */
export function accessCredentialSecrets(spec: VirtualMachineInstanceSpec): AccessCredentialSecret[] {
  const out: AccessCredentialSecret[] = [];
  (spec.accessCredentials ?? []).forEach((raw, index) => {
    const cred = raw as { sshPublicKey?: Credential; userPassword?: Credential } | null;
    const kind = cred?.sshPublicKey !== undefined ? 'sshPublicKey' : 'userPassword';
    const c = cred?.[kind];
    const secretName = c?.source?.secret?.secretName ?? '';
    if (secretName === '') return;
    const methods = Object.keys(c?.propagationMethod ?? {}) as Propagation[];
    out.push({ index, kind, secretName, propagation: new Set(methods) });
  });
  return out;
}

/** The directory (under the private secret directory) holding a credential secret's files. */
export function accessCredentialDir(secretName: string): string {
  return `${secretName}-access-cred`;
}
