/**
 * Flag parsers and options every role's command shares. A bad value is a one-line commander error naming the
 * flag and what it expects (exit 1), never a stack trace.
 */
import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { KvError } from '../lib/kernel/errors/errors.ts';
// Its own module, not kube/index.ts: the launcher (and its probe, run every period) never loads the kube client.
import { pemPairFlags } from '../lib/kernel/kube/pem-check.ts';
import type { Logger } from '../lib/kernel/log/log.ts';
import type { HealthTls } from '../lib/kernel/metrics/server.ts';
import { temporaryServingPair } from '../lib/kernel/x509/certificate.ts';

/** A whole number in [min, max]. */
export const intIn =
  (min: number, max: number) =>
  (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}`);
    }
    return n;
  };

export const wholeNumber = intIn(0, Number.MAX_SAFE_INTEGER);
export const positiveInt = intIn(1, Number.MAX_SAFE_INTEGER);
export const port = intIn(0, 65535);

export function bool(value: string): boolean {
  if (value !== 'true' && value !== 'false') throw new InvalidArgumentError('expected true or false');
  return value === 'true';
}

/** A comma-separated list: each item trimmed, empty ones dropped (` a, b,` → ['a', 'b']; ` , ` → []). */
export function namesList(value: string): string[] {
  return value
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
}

/** An address flag's value when it is an IP address; KV_ERR_CONFIG naming the flag otherwise. */
export function ipAddress(flag: string, value: string): string {
  if (isIP(value) === 0) throw new KvError('KV_ERR_CONFIG', `${flag} ${value}: not an IP address`);
  return value;
}

/** An option with a parser and a default. */
export const parsed = <T>(flags: string, description: string, parse: (v: string) => T, def: T): Option =>
  new Option(flags, description).argParser(parse).default(def);

/** A comma-separated list option (namesList); the help shows the default as one would pass it. */
export const namesOption = (flags: string, description: string, def: readonly string[]): Option =>
  new Option(flags, description).argParser(namesList).default([...def], JSON.stringify(def.join(',')));

/** `-v, --verbosity <n>`: debug log levels above 2. */
export const verbosityOption = (): Option =>
  parsed(
    '-v, --verbosity <n>',
    'log verbosity (debug levels above 2; from 4, failures carry their stack)',
    intIn(0, 10),
    2,
  );

export interface MetricsTlsFlags {
  metricsTlsCertFile?: string;
  metricsTlsKeyFile?: string;
}

/** The health port's TLS flags, the same in every role. */
export const addMetricsTlsFlags = (cmd: Command): Command =>
  cmd
    .option(
      '--metrics-tls-cert-file <file>',
      'serve /metrics, /healthz and /readyz over TLS with this certificate (PEM, read again when it changes); /metrics then answers only callers the cluster allows to get it',
    )
    .option('--metrics-tls-key-file <file>', 'its key (PEM)');

/** The certificate and key of --metrics-tls-cert-file and --metrics-tls-key-file: both, read and checked, or none. */
export function metricsTls(f: MetricsTlsFlags): HealthTls | undefined {
  const certFile = f.metricsTlsCertFile;
  const keyFile = f.metricsTlsKeyFile;
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (certFile === undefined || keyFile === undefined)
    throw new KvError(
      'KV_ERR_CONFIG',
      '--metrics-tls-cert-file and --metrics-tls-key-file go together: pass both (TLS, /metrics authorized) or neither (plain HTTP, /metrics open)',
    );
  const pair = pemPairFlags(
    { flag: '--metrics-tls-cert-file', file: certFile },
    { flag: '--metrics-tls-key-file', file: keyFile },
  );
  return { ...pair, certFile, keyFile };
}

/**
 * metricsTls for a role that issues its own certificate into an optional Secret volume: until both files are
 * there it serves a temporary self-signed pair (the kubelet's probes do not verify it; a role refusing to start
 * would never issue them), and the health server takes the files up once they appear, as it takes a rotation.
 */
export function metricsTlsOnceIssued(f: MetricsTlsFlags, log: Logger): HealthTls | undefined {
  const certFile = f.metricsTlsCertFile;
  const keyFile = f.metricsTlsKeyFile;
  if (certFile === undefined || keyFile === undefined || (existsSync(certFile) && existsSync(keyFile)))
    return metricsTls(f);
  const why =
    'metrics certificate files not there yet: serving a temporary self-signed one until they appear';
  log.warning(why, { certFile, keyFile });
  const temporary = temporaryServingPair('kubevirt-ts temporary metrics certificate', new Date());
  return { ...temporary, certFile, keyFile };
}
