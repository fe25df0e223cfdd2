import { describe, expect, it } from '@jest/globals';
import { KvError } from '../../kernel/errors/errors.ts';
import {
  parseScpLocations,
  parseSshTarget,
  proxyCommandOption,
  scpArgv,
  shellQuote,
  sshArgv,
  type LocalClientArgs,
  type ScpLocations,
  type SshTarget,
} from './local-client-args.ts';

const BASE: LocalClientArgs = {
  self: ['/usr/bin/node', '/opt/kv/dist/virtctl-ts.mjs'],
  target: { kind: 'vmi', name: 'testvmi', namespace: 'ns' },
  port: 22,
  localOptions: [],
};
const PROXY =
  'ProxyCommand=/usr/bin/node /opt/kv/dist/virtctl-ts.mjs port-forward --stdio=true vmi/testvmi/ns 22';

function usage(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect((err as KvError).code).toBe('KV_ERR_INVALID');
    return (err as KvError).message;
  }
  throw new Error('no error thrown');
}

describe('ssh target', () => {
  it.each<[string, SshTarget]>([
    ['vmi/testvmi', { target: { kind: 'vmi', name: 'testvmi', legacy: false } }],
    [
      'jdoe@vm/testvm/mynamespace',
      { username: 'jdoe', target: { kind: 'vm', name: 'testvm', namespace: 'mynamespace', legacy: false } },
    ],
    [
      'jdoe@vmi/testvmi.mynamespace',
      { username: 'jdoe', target: { kind: 'vmi', name: 'testvmi', namespace: 'mynamespace', legacy: true } },
    ],
  ])('reads %s', (text, want) => {
    expect(parseSshTarget(text)).toEqual(want);
  });

  it.each([
    [
      '@vmi/a',
      "expected username before '@' in '@vmi/a': write [user@]type/name[/namespace], e.g. jdoe@vmi/testvmi",
    ],
    [
      'jdoe@',
      "expected target after '@' in 'jdoe@': write [user@]type/name[/namespace], e.g. jdoe@vmi/testvmi",
    ],
    [
      'a@b@vmi/x',
      "expected at most one '@' in 'a@b@vmi/x': write [user@]type/name[/namespace], e.g. jdoe@vmi/testvmi",
    ],
    [
      'jdoe@pod/x',
      "unsupported resource type 'pod': use vm (virtualmachine) or vmi (virtualmachineinstance)",
    ],
  ])('refuses %j', (text, message) => {
    expect(usage(() => parseSshTarget(text))).toBe(message);
  });
});

describe('scp locations', () => {
  const vmi = { kind: 'vmi', name: 'testvmi', legacy: false } as const;
  it.each<[string, string, ScpLocations]>([
    [
      'myfile.bin',
      'jdoe@vmi/testvmi:myfile.bin',
      { local: 'myfile.bin', remote: { username: 'jdoe', target: vmi, path: 'myfile.bin' }, toRemote: true },
    ],
    [
      'vmi/testvmi:/etc/os-release',
      '/tmp/x',
      { local: '/tmp/x', remote: { target: vmi, path: '/etc/os-release' }, toRemote: false },
    ],
    ['f', 'vmi/testvmi:', { local: 'f', remote: { target: vmi, path: '' }, toRemote: true }],
  ])('reads %s %s', (src, dst, want) => {
    expect(parseScpLocations(src, dst)).toEqual(want);
  });

  it.each([
    [
      'vmi/a:x',
      'vmi/b:y',
      'copying from a remote location to another remote location is not supported: "vmi/a:x" to "vmi/b:y"; one location is local, the other [user@]type/name[/namespace]:path',
    ],
    [
      'a',
      'b',
      'none of the two provided locations seems to be a remote location: "a" to "b"; one location is local, the other [user@]type/name[/namespace]:path',
    ],
    [
      'a',
      'testvmi:b',
      "target must contain type and name separated by '/' (got 'testvmi'): write type/name[/namespace], e.g. vmi/testvmi or vm/testvm/mynamespace",
    ],
  ])('refuses %j to %j', (src, dst, message) => {
    expect(usage(() => parseScpLocations(src, dst))).toBe(message);
  });
});

describe('local ssh/scp command lines', () => {
  it.each([
    ['plain', 'plain'],
    ['/a/b-c_d.e', '/a/b-c_d.e'],
    ['with space', "'with space'"],
    ["it's", `'it'\\''s'`],
    ['$HOME', "'$HOME'"],
    ['', "''"],
  ])('quotes %j for the shell as %s', (word, quoted) => {
    expect(shellQuote(word)).toBe(quoted);
  });

  it('writes a ProxyCommand that runs this CLI with the run kubeconfig flags, quoted, with % doubled', () => {
    expect(proxyCommandOption(BASE)).toBe(PROXY);
    expect(
      proxyCommandOption({
        ...BASE,
        self: ['/home/j d/node', '--import', '/r/node_modules/tsx/dist/loader.mjs', '/r/cmd/virtctl.ts'],
        kubeconfig: '/tmp/kube 50%',
        context: 'prod',
        target: { kind: 'vm', name: 'v', namespace: 'n' },
        port: 2222,
      }),
    ).toBe(
      "ProxyCommand='/home/j d/node' --import /r/node_modules/tsx/dist/loader.mjs /r/cmd/virtctl.ts --kubeconfig '/tmp/kube 50%%' --context prod port-forward --stdio=true vm/v/n 2222",
    );
  });

  it.each<[string, Partial<LocalClientArgs>, string | undefined, string[]]>([
    ['bare', {}, undefined, ['-o', PROXY, 'vmi.testvmi.ns']],
    ['a user and a command', { username: 'jdoe' }, 'ls /', ['-o', PROXY, 'jdoe@vmi.testvmi.ns', 'ls /']],
    [
      'every flag, in KubeVirt order',
      {
        username: 'jdoe',
        identityFile: '/k/id',
        knownHosts: '/k/known hosts',
        localOptions: ['-o StrictHostKeyChecking=no', '-v'],
      },
      'uname -a',
      [
        '-o',
        PROXY,
        '-o StrictHostKeyChecking=no',
        '-v',
        '-i',
        '/k/id',
        '-o',
        'UserKnownHostsFile="/k/known hosts"',
        'jdoe@vmi.testvmi.ns',
        'uname -a',
      ],
    ],
  ])('ssh: %s', (_name, extra, command, argv) => {
    expect(sshArgv({ ...BASE, ...extra }, command)).toEqual(argv);
  });

  it.each([
    [
      'to the VM',
      { recursive: false, preserve: false, toRemote: true },
      ['-o', PROXY, '/l/f', 'jdoe@vmi.testvmi.ns:/r/f'],
    ],
    [
      'from the VM, recursive and preserving',
      { recursive: true, preserve: true, toRemote: false },
      ['-o', PROXY, '-r', '-p', 'jdoe@vmi.testvmi.ns:/r/f', '/l/f'],
    ],
  ])('scp: %s', (_name, copy, argv) => {
    expect(scpArgv({ ...BASE, username: 'jdoe' }, { ...copy, local: '/l/f', remotePath: '/r/f' })).toEqual(
      argv,
    );
  });
});
