/**
 * Certificates for REST server tests, from the test PKI: the client CA with a server certificate for
 * 127.0.0.1 and a client certificate (CN kubevirt.io:system:client:virt-handler, as KubeVirt names it), and a
 * second CA with a client certificate of its own (one the server must refuse).
 */
import { makeTestPki, pemOf } from '../../../../testenv/pki.ts';

export const CLIENT_CN = 'kubevirt.io:system:client:virt-handler';

export interface Pem {
  readonly cert: Buffer;
  readonly key: Buffer;
}

export interface RestPki {
  readonly ca: Pem;
  readonly server: Pem;
  readonly client: Pem;
  /** A client certificate from another CA. */
  readonly stranger: Pem;
  /** A client certificate from the right CA with another CN. */
  readonly otherName: Pem;
}

export async function makeRestPki(): Promise<RestPki> {
  const pki = await makeTestPki([
    { name: 'ca', cn: 'kubevirt-ts-console-test-ca' },
    { name: 'other-ca', cn: 'some-other-ca' },
    {
      name: 'server',
      cn: 'virt-handler',
      issuer: 'ca',
      usage: 'serverAuth',
      sans: 'IP:127.0.0.1,DNS:localhost',
    },
    { name: 'client', cn: CLIENT_CN, issuer: 'ca', usage: 'clientAuth' },
    { name: 'stranger', cn: CLIENT_CN, issuer: 'other-ca', usage: 'clientAuth' },
    { name: 'other-name', cn: 'someone-else', issuer: 'ca', usage: 'clientAuth' },
  ]);
  const pem = (name: string): Pem => {
    const p = pemOf(pki, name);
    return { cert: Buffer.from(p.cert), key: Buffer.from(p.key) };
  };
  return {
    ca: pem('ca'),
    server: pem('server'),
    client: pem('client'),
    stranger: pem('stranger'),
    otherName: pem('other-name'),
  };
}
