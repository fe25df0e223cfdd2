import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTlsFixture, type TlsFixture } from '../testenv/pki.ts';

const virt = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'virt');

// Each case starts the binary: seconds on a busy machine.
jest.setTimeout(90_000);

const TOKEN = 'kv-cli-token-8c2f4e1d';
const KEY_TEXT = 'KV-CLI-KEY-MATERIAL-5e7a';
const KEY_DATA = Buffer.from(
  `-----BEGIN PRIVATE KEY-----\n${KEY_TEXT}\n-----END PRIVATE KEY-----\n`,
).toString('base64');
/** Texts none of which may appear in any output. */
const SECRETS = [TOKEN, KEY_TEXT, KEY_DATA.slice(0, 16), KEY_DATA.slice(-16)];

const ROLES: readonly (readonly [string, readonly string[]])[] = [
  ['rewriter', ['rewriter', '--listen', '127.0.0.1:0', '--metrics-listen', '127.0.0.1:0']],
  ['controller', ['controller', '--launcher-image', 'x', '--health-port', '0', '--leader-elect', 'false']],
  ['handler', ['handler', '--node-name', 'n', '--port', '0', '--root', tmpdir()]],
];

let tls: TlsFixture;
let dir: string;
const files: Record<string, string> = {};

const yaml = (...lines: string[]): string => lines.join('\n') + '\n';
const b64 = (s: string): string => Buffer.from(s).toString('base64');

beforeAll(async () => {
  tls = await makeTlsFixture();
  dir = mkdtempSync(join(tmpdir(), 'kv-start-up-'));
  const head = ['apiVersion: v1', 'kind: Config', 'users:', '- name: u', '  user:'];
  const valid = (user: string[]): string =>
    yaml(
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: c',
      '  cluster:',
      '    server: https://127.0.0.1:1',
      `    certificate-authority-data: ${b64(tls.cert)}`,
      'users:',
      '- name: u',
      '  user:',
      ...user,
      'contexts:',
      '- name: x',
      '  context: {cluster: c, user: u}',
      'current-context: x',
    );
  const kubeconfigs: Record<string, string> = {
    'a YAML syntax error next to a token': yaml(...head, `    token: ${TOKEN}`, '   bad: [', 'contexts: []'),
    'a YAML syntax error next to a client key': yaml(
      ...head,
      `    client-key-data: ${KEY_DATA}`,
      '     x: [',
    ),
    'a client key that is not a key': valid([
      `    client-certificate-data: ${b64(tls.cert)}`,
      `    client-key-data: ${KEY_DATA}`,
      `    token: ${TOKEN}`,
    ]),
    'a valid kubeconfig': valid([`    token: ${TOKEN}`]),
  };
  for (const [name, text] of Object.entries(kubeconfigs)) {
    const file = join(dir, name.replace(/\W+/g, '-'));
    writeFileSync(file, text);
    files[name] = file;
  }
});
afterAll(() => {
  tls.remove();
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  /** stdout and stderr together, as a person at a terminal sees them. */
  output: string;
}

function run(args: readonly string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      virt,
      args,
      { timeout: 60_000, env: { ...process.env, KUBECONFIG: '' } },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : null;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

const KUBECONFIGS = [
  'a YAML syntax error next to a token',
  'a YAML syntax error next to a client key',
  'a client key that is not a key',
];
const CASES = ROLES.flatMap(([role, args]) => KUBECONFIGS.map((k) => [role, k, args] as const));

describe('a kube role given a broken kubeconfig', () => {
  it.each(CASES)(
    'virt %s, %s: exits 1 with one line that quotes nothing',
    async (_role, kubeconfig, args) => {
      const r = await run([...args, '--kubeconfig', files[kubeconfig] ?? '']);
      expect(r.code).toBe(1);
      for (const secret of SECRETS) expect(r.output).not.toContain(secret);
      const lines = r.output.split('\n').filter((l) => l !== '');
      expect(lines).toHaveLength(1);
      const line = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
      expect(line).toMatchObject({ level: 'error', msg: 'main failed' });
      expect(line['reason']).toEqual(expect.stringContaining(`KV_ERR_CONFIG: `));
      expect(line['reason']).toEqual(expect.stringContaining(files[kubeconfig] ?? ''));
      expect(line).not.toHaveProperty('stack');
    },
  );

  it.each(ROLES)('virt %s -v 4: adds the stack, still quoting nothing', async (_role, args) => {
    const r = await run([
      ...args,
      '-v',
      '4',
      '--kubeconfig',
      files['a YAML syntax error next to a token'] ?? '',
    ]);
    expect(r.code).toBe(1);
    for (const secret of SECRETS) expect(r.output).not.toContain(secret);
    const lines = r.output.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    expect(line['reason']).toMatch(/not valid YAML \(line 7, column 1\)/);
    expect(line['stack']).toEqual(expect.stringContaining('KvError: kubeconfig'));
  });
});

describe("the handler's REST server flags", () => {
  const handler = ['handler', '--node-name', 'n', '--port', '0', '--root', tmpdir()];
  const reasonOf = (r: Run): string => {
    const lines = r.output.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1);
    return String((JSON.parse(lines[0] ?? '') as Record<string, unknown>)['reason']);
  };

  it('refuses some of the TLS files without the others, naming all three', async () => {
    const r = await run([...handler, '--tls-cert-file', tls.certFile]);
    expect(r.code).toBe(1);
    expect(reasonOf(r)).toMatch(/--tls-cert-file, --tls-key-file and --client-ca-file together/);
  });

  it('refuses a key file that holds no key, naming the flag and the file and quoting nothing', async () => {
    const notKey = files['a client key that is not a key'] ?? '';
    const r = await run([
      ...handler,
      ...['--tls-cert-file', tls.certFile, '--tls-key-file', notKey, '--client-ca-file', tls.certFile],
    ]);
    expect(r.code).toBe(1);
    for (const secret of SECRETS) expect(r.output).not.toContain(secret);
    expect(reasonOf(r)).toEqual(expect.stringContaining(`KV_ERR_CONFIG: --tls-key-file ${notKey}`));
  });
});

describe("the api's client trust flags", () => {
  const api = (): string[] => [
    ...['api', '--port', '0', '--health-port', '0', '--listen-address', '127.0.0.1'],
    ...['--kubeconfig', files['a valid kubeconfig'] ?? ''],
    ...['--tls-cert-file', tls.certFile, '--tls-private-key-file', tls.keyFile],
    ...['--handler-ca-file', tls.certFile, '--handler-client-cert-file', tls.certFile],
    ...['--handler-client-key-file', tls.keyFile],
  ];
  const reasonOf = (r: Run): string => {
    const lines = r.output.split('\n').filter((l) => l !== '');
    return String((JSON.parse(lines[lines.length - 1] ?? '') as Record<string, unknown>)['reason']);
  };

  it('refuses to start without a CA for the webhook callers', async () => {
    const r = await run(api());
    expect(r.code).toBe(1);
    expect(reasonOf(r)).toBe(
      'KV_ERR_CONFIG: --webhook-client-ca-file is required without --client-ca-file: the admission webhooks ' +
        'answer only callers with a client certificate from that CA',
    );
  });

  it.each([
    ['--client-ca-allowed-names', '--client-ca-file'],
    ['--webhook-client-allowed-names', '--webhook-client-ca-file'],
  ])('refuses an empty %s', async (names, caFlag) => {
    const r = await run([...api(), '--client-ca-file', tls.certFile, names, ' , ']);
    expect(r.code).toBe(1);
    expect(reasonOf(r)).toBe(
      `KV_ERR_CONFIG: ${names} lists no name: the certificates of ${caFlag} are accepted only with a common name it lists`,
    );
  });
});

describe('the metrics TLS flags', () => {
  const kubeconfig = (): string[] => ['--kubeconfig', files['a valid kubeconfig'] ?? ''];
  const roles = (): (readonly [string, string[]])[] => [
    ['controller', ['controller', '--launcher-image', 'x', '--health-port', '0', ...kubeconfig()]],
    [
      'api',
      [
        ...['api', '--port', '0', '--health-port', '0', ...kubeconfig()],
        ...['--tls-cert-file', tls.certFile, '--tls-private-key-file', tls.keyFile],
        ...['--handler-ca-file', tls.certFile, '--handler-client-cert-file', tls.certFile],
        ...['--handler-client-key-file', tls.keyFile, '--client-ca-file', tls.certFile],
      ],
    ],
    ['handler', ['handler', '--node-name', 'n', '--port', '0', '--root', tmpdir(), ...kubeconfig()]],
    ['rewriter', ['rewriter', '--upstream', 'https://127.0.0.1:1', '--metrics-listen', '127.0.0.1:0']],
    ['pr-helper', ['pr-helper', '--health-port', '0', '--socket', join(dir, 'pr.sock'), ...kubeconfig()]],
  ];

  it.each(['controller', 'api', 'handler', 'rewriter', 'pr-helper'])(
    'virt %s refuses a metrics certificate without its key, naming both flags',
    async (role) => {
      const args = roles().find(([name]) => name === role)?.[1] ?? [];
      const r = await run([...args, '--metrics-tls-cert-file', tls.certFile]);
      expect(r.code).toBe(1);
      const lines = r.output.split('\n').filter((l) => l !== '');
      expect(JSON.parse(lines[lines.length - 1] ?? '')).toMatchObject({
        msg: 'main failed',
        reason:
          'KV_ERR_CONFIG: --metrics-tls-cert-file and --metrics-tls-key-file go together: pass both ' +
          '(TLS, /metrics authorized) or neither (plain HTTP, /metrics open)',
      });
    },
  );
});
