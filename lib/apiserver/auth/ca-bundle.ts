/**
 * A parsed PEM bundle of CA certificates. It prints (JSON, util.inspect, template strings) only as a count
 * and the subjects, so a config object that ends up in a log line or an error never carries PEM text.
 */
import { X509Certificate } from 'node:crypto';
import { inspect } from 'node:util';
import { KvError } from '../../kernel/errors/errors.ts';

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g;

export class CaBundle {
  readonly #certificates: readonly X509Certificate[];
  readonly #pem: string;

  private constructor(certificates: readonly X509Certificate[], pem: string) {
    this.#certificates = certificates;
    this.#pem = pem;
  }

  /**
   * Parses every CERTIFICATE block (other blocks are skipped, as Kubernetes' cert.ParseCertsPEM does).
   * `where` names the source in errors, e.g. 'kube-system/extension-apiserver-authentication key
   * requestheader-client-ca-file'; the PEM text itself never appears in a message.
   */
  static parse(pem: string, where: string): CaBundle {
    const certificates: X509Certificate[] = [];
    let index = 0;
    for (const m of pem.matchAll(PEM_BLOCK)) {
      index++;
      if (m[1] !== 'CERTIFICATE') continue;
      try {
        certificates.push(new X509Certificate(m[0]));
      } catch (err) {
        throw new KvError('KV_ERR_CONFIG', `${where}: PEM block ${index} is not a valid certificate`, {
          cause: err,
        });
      }
    }
    if (certificates.length === 0) {
      throw new KvError('KV_ERR_CONFIG', `${where} holds no PEM certificate`);
    }
    return new CaBundle(certificates, pem);
  }

  get certificates(): readonly X509Certificate[] {
    return this.#certificates;
  }

  /** The PEM text, for the TLS server's `ca` option. Never log it. */
  get pem(): string {
    return this.#pem;
  }

  toString(): string {
    return `CaBundle(${this.#certificates.length} certificates)`;
  }

  toJSON(): { certificates: number; subjects: string[] } {
    return { certificates: this.#certificates.length, subjects: this.#certificates.map((c) => c.subject) };
  }

  [inspect.custom](): string {
    return `CaBundle { certificates: ${this.#certificates.length} }`;
  }
}
