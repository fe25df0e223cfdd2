/**
 * Proving domain XML in a real libvirt (test code): a private libvirtd (testenv/libvirt, the tests' shared QEMU
 * capabilities cache) reached through our client, and defineAndUndefine: define with libvirt's schema
 * validation, read the persistent definition back, check it is the domain given, undefine it. Nothing
 * starts, so paths the XML names (disk images, OVMF files, sockets) need not exist: libvirt 9.0 checks at
 * define the schema, the emulator binary, the virt type, the machine type and rules such as secure boot
 * needing SMM, but opens no disk, loader or NVRAM template and leaves CPU models and features to start time.
 *
 * Where KVM does not work, libvirt refuses `type='kvm'` at define ("Emulator ... does not support virt type
 * 'kvm'"). Only for that refusal, the domain is defined again with `type='qemu'` and nothing else changed,
 * and the result says so (kvmRefused); any other refusal, or one of the retry, fails with libvirt's message.
 */
import { KvError } from '../../../kernel/errors/errors.ts';
import { nopLogger, type Logger } from '../../../kernel/log/log.ts';
import {
  defineDomain,
  DOMAIN_UNDEFINE,
  DOMAIN_XML,
  getDomainXml,
  isLibvirtError,
  LibvirtConnection,
  undefineDomain,
  VIR_ERR,
  type DomainRef,
} from '../../../libvirt/index.ts';
import { startPrivateLibvirt, type PrivateLibvirt } from '../../../../testenv/libvirt/daemon.ts';
import { readBackMismatches } from './read-back.ts';

export interface DefineLibvirt {
  readonly conn: LibvirtConnection;
  readonly daemon: PrivateLibvirt;
  /** Closes the connection, then stops the daemon (its temp dir goes with it). */
  stop(): Promise<void>;
}

/** A private libvirtd and a connection to it through lib/libvirt. */
export async function startDefineLibvirt(o: { log?: Logger } = {}): Promise<DefineLibvirt> {
  const log = o.log ?? nopLogger;
  const daemon = await startPrivateLibvirt({ log });
  let conn: LibvirtConnection;
  try {
    conn = await LibvirtConnection.open({ socketPath: daemon.socketPath, uri: daemon.uri, log });
  } catch (err) {
    await daemon.stop();
    throw err;
  }
  return {
    conn,
    daemon,
    stop: async (): Promise<void> => {
      await conn.close();
      await daemon.stop();
    },
  };
}

export interface DefineOptions {
  /** Define as type='qemu' when libvirt refuses type='kvm' for that reason alone (default true). */
  readonly tcgWhenKvmRefused?: boolean;
}

export interface Defined {
  /** libvirt's persistent definition (VIR_DOMAIN_XML_INACTIVE), read back before the undefine. */
  readonly readBack: string;
  /** The XML libvirt accepted: the one given, or its type='qemu' form when kvmRefused is set. */
  readonly defined: string;
  /** libvirt's refusal of type='kvm', when the domain was defined as type='qemu' because of it. */
  readonly kvmRefused?: string;
}

const KVM_REFUSAL = /does not support virt type 'kvm'/;

/** Whether err is libvirt refusing virt type kvm (KVM unusable on this host), and nothing else. */
export function isKvmRefusal(err: unknown): boolean {
  return (
    isLibvirtError(err) && err.libvirtCode === VIR_ERR.CONFIG_UNSUPPORTED && KVM_REFUSAL.test(err.message)
  );
}

const ROOT_KVM = /^(\s*(?:<\?xml[^?]*\?>\s*)?<domain\s(?:[^>]*?\s)?type=)(["'])kvm\2/;

/** The same domain XML with the root's type='kvm' made type='qemu'; every other byte unchanged. */
export function asTcgDomain(xml: string): string {
  if (!ROOT_KVM.test(xml))
    throw new KvError('KV_ERR_INVALID', "domain XML: the root is not <domain type='kvm'>");
  return xml.replace(ROOT_KVM, '$1$2qemu$2');
}

interface Accepted {
  readonly ref: DomainRef;
  readonly defined: string;
  readonly kvmRefused?: string;
}

async function defineValidated(conn: LibvirtConnection, xml: string, o: DefineOptions): Promise<Accepted> {
  try {
    return { ref: await defineDomain(conn, xml, { validate: true }), defined: xml };
  } catch (err) {
    if (o.tcgWhenKvmRefused === false || !isKvmRefusal(err)) throw err;
    const kvmRefused = err instanceof Error ? err.message : String(err);
    const tcg = asTcgDomain(xml);
    try {
      return { ref: await defineDomain(conn, tcg, { validate: true }), defined: tcg, kvmRefused };
    } catch (retryErr) {
      const why = retryErr instanceof Error ? retryErr.message : String(retryErr);
      throw new KvError(
        'KV_ERR_LIBVIRT',
        `libvirt refused type='kvm' (${kvmRefused}), then type='qemu': ${why}`,
        {
          cause: retryErr,
        },
      );
    }
  }
}

/**
 * Defines xml (validated against libvirt's schema), reads the definition back and checks it, then undefines
 * it (its NVRAM file too, had libvirt made one). Rejects with libvirt's error when libvirt refuses the XML.
 */
export async function defineAndUndefine(
  conn: LibvirtConnection,
  xml: string,
  o: DefineOptions = {},
): Promise<Defined> {
  const { ref, defined, kvmRefused } = await defineValidated(conn, xml, o);
  try {
    const readBack = await getDomainXml(conn, ref, DOMAIN_XML.INACTIVE);
    const wrong = readBackMismatches(defined, readBack);
    if (wrong.length > 0)
      throw new KvError('KV_ERR_INTERNAL', `libvirt's read-back differs: ${wrong.join('; ')}`);
    return { readBack, defined, ...(kvmRefused !== undefined && { kvmRefused }) };
  } finally {
    await undefineDomain(conn, ref, DOMAIN_UNDEFINE.NVRAM);
  }
}
