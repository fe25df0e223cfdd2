import { describe, expect, it } from '@jest/globals';
import { accessCredentialDir, accessCredentialSecrets } from './access-credentials.ts';
import { newSpec } from './testing/builders.ts';

describe('accessCredentialSecrets', () => {
  it('reads each secret-backed credential with its kind, position and propagation methods', () => {
    const spec = newSpec((s) => {
      s.accessCredentials = [
        { sshPublicKey: { source: { secret: { secretName: 'keys' } }, propagationMethod: { noCloud: {} } } },
        { sshPublicKey: { source: {}, propagationMethod: { configDrive: {} } } },
        {
          userPassword: {
            source: { secret: { secretName: 'pw' } },
            propagationMethod: { qemuGuestAgent: {} },
          },
        },
      ];
    });
    expect(accessCredentialSecrets(spec)).toEqual([
      { index: 0, kind: 'sshPublicKey', secretName: 'keys', propagation: new Set(['noCloud']) },
      { index: 2, kind: 'userPassword', secretName: 'pw', propagation: new Set(['qemuGuestAgent']) },
    ]);
    expect(accessCredentialDir('keys')).toBe('keys-access-cred');
  });
});
