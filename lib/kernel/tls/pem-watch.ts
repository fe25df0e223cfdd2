/**
 * PEM files watched for rotation, as KubeVirt's FileCertificateManager (pkg/certificates/bootstrap) reloads a
 * certificate and key when their files change: the files are read every interval and compared by the digest of
 * their content, so a rewrite in place and a rename into place (the `..data` symlink swap of a Secret volume)
 * are both seen. A changed set is checked (each certificate parses, the key is the certificate's) before it is
 * handed on; a broken or half-written one is logged once by file and reason, never its content, and the set in
 * use stays. A CA bundle alone (a trust without a certificate of one's own) is watched the same way.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { realClock, type Clock } from '../clock.ts';
import { errorMessage, KvError } from '../errors/errors.ts';
import { errnoText } from '../kube/load-errors.ts';
import { checkCertificates, checkKeyPair, checkPrivateKey } from '../kube/pem-check.ts';
import type { Logger } from '../log/log.ts';

/** How often the files are read: a rotated certificate is in use at most this long after it lands. */
export const DEFAULT_PEM_POLL_MS = 10_000;

/** Where a certificate, its key and optionally a CA bundle are read from. */
export interface PemFiles {
  readonly cert: string;
  readonly key: string;
  readonly ca?: string | undefined;
}

export interface PemSet {
  readonly cert: string;
  readonly key: string;
  readonly ca?: string;
}

type Pem = string | Buffer;

export interface PemWatchOptions {
  readonly files: PemFiles;
  /** The set in use now (as read at start-up): a change is a difference from it. */
  readonly current: { readonly cert: Pem; readonly key: Pem; readonly ca?: Pem | undefined };
  /** Takes a checked set into use for new connections; a throw keeps the set in use (logged). */
  readonly apply: (next: PemSet) => void;
  readonly log: Logger;
  readonly clock?: Clock;
  /** Default DEFAULT_PEM_POLL_MS. */
  readonly intervalMs?: number;
}

export interface PemWatch {
  close(): Promise<void>;
}

/** One digest over the parts, each ended by a NUL (which PEM text never holds). */
export function pemDigest(set: PemWatchOptions['current']): string {
  const h = createHash('sha256');
  for (const part of [set.cert, set.key, set.ca ?? '']) h.update(part).update('\0');
  return h.digest('hex');
}

/** Throws KV_ERR_CONFIG naming the file whose content is unusable (and why, by OpenSSL's code only). */
export function checkPemSet(set: PemSet, files: PemFiles): void {
  checkCertificates(set.cert, files.cert);
  checkPrivateKey(set.key, files.key);
  checkKeyPair(set.cert, set.key, `${files.cert} and ${files.key}`);
  if (set.ca !== undefined) checkCertificates(set.ca, files.ca ?? 'the CA');
}

async function readPem(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    const why = errnoText(err) ?? 'unreadable';
    throw new KvError('KV_ERR_CONFIG', `${file}: cannot read it (${why})`, { cause: err });
  }
}

async function readSet(files: PemFiles): Promise<PemSet> {
  const [cert, key, ca] = await Promise.all([
    readPem(files.cert),
    readPem(files.key),
    files.ca === undefined ? undefined : readPem(files.ca),
  ]);
  return { cert, key, ...(ca !== undefined && { ca }) };
}

/** What a watch reads, checks and hands on, the files it names in its log lines. */
interface Source<S> {
  readonly files: readonly string[];
  read(): Promise<S>;
  digest(s: S): string;
  check(s: S): void;
  apply(s: S): void;
}

type Look<S> = { readonly mark: string; readonly got: S } | { readonly mark: string; readonly err: unknown };

type Timing = Pick<PemWatchOptions, 'log' | 'clock' | 'intervalMs'>;

/** Reads the source every interval until close(); each new usable state goes to apply once. */
function pollFiles<S>(src: Source<S>, current: string, o: Timing): PemWatch {
  const clock = o.clock ?? realClock;
  const log = o.log.with({ files: src.files });
  const stop = new AbortController();
  let inUse = current;
  // The last state looked at, taken or refused: each change is acted on and logged once.
  let seen = inUse;
  const look = (): Promise<Look<S>> =>
    src.read().then(
      (got) => ({ mark: src.digest(got), got }),
      (err: unknown) => ({ mark: `unreadable: ${errorMessage(err)}`, err }),
    );
  const poll = async (): Promise<void> => {
    const state = await look();
    if (state.mark === seen) return;
    seen = state.mark;
    if (state.mark === inUse) return;
    try {
      if ('err' in state) throw state.err;
      src.check(state.got);
      src.apply(state.got);
    } catch (err) {
      log.warning('TLS files changed but unusable; keeping the ones in use', { reason: errorMessage(err) });
      return;
    }
    inUse = state.mark;
    log.info('TLS files reloaded');
  };
  const done = (async (): Promise<void> => {
    for (;;) {
      try {
        await clock.sleep(o.intervalMs ?? DEFAULT_PEM_POLL_MS, stop.signal);
      } catch {
        return;
      }
      await poll();
    }
  })();
  return {
    close: async (): Promise<void> => {
      stop.abort();
      await done;
    },
  };
}

/** Reads the files every interval until close(); each new usable set goes to apply once. */
export function watchPemFiles(o: PemWatchOptions): PemWatch {
  const source: Source<PemSet> = {
    files: Object.values(o.files).filter((f) => f !== undefined),
    read: () => readSet(o.files),
    digest: pemDigest,
    check: (set) => {
      checkPemSet(set, o.files);
    },
    apply: o.apply,
  };
  return pollFiles(source, pemDigest(o.current), o);
}

export interface CaWatchOptions extends Timing {
  readonly file: string;
  /** The CA bundle in use now. */
  readonly current: Pem;
  readonly apply: (ca: string) => void;
}

/** A CA bundle alone (a trust without a certificate of one's own), watched as watchPemFiles watches a set. */
export function watchCaFile(o: CaWatchOptions): PemWatch {
  const digest = (ca: Pem): string => pemDigest({ cert: '', key: '', ca });
  const source: Source<string> = {
    files: [o.file],
    read: () => readPem(o.file),
    digest,
    check: (ca) => {
      checkCertificates(ca, o.file);
    },
    apply: o.apply,
  };
  return pollFiles(source, digest(o.current), o);
}
