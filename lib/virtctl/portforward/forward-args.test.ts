import { describe, expect, it } from '@jest/globals';
import { KvError } from '../../kernel/errors/errors.ts';
import {
  describeForward,
  parseForwardArgs,
  parsePort,
  parseTarget,
  portForwardPath,
  type ForwardTarget,
  type ForwardedPort,
} from './forward-args.ts';

const tcp = (local: number, remote = local): ForwardedPort => ({ protocol: 'tcp', local, remote });
const udp = (local: number, remote = local): ForwardedPort => ({ protocol: 'udp', local, remote });

/** The message of the usage error fn throws. */
function usage(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(KvError);
    expect((err as KvError).code).toBe('KV_ERR_INVALID');
    return (err as KvError).message;
  }
  throw new Error('no error thrown');
}

describe('parseTarget', () => {
  it.each<[string, ForwardTarget]>([
    ['vmi/testvmi', { kind: 'vmi', name: 'testvmi', legacy: false }],
    ['vm/testvm', { kind: 'vm', name: 'testvm', legacy: false }],
    ['vmi/testvmi/mynamespace', { kind: 'vmi', name: 'testvmi', namespace: 'mynamespace', legacy: false }],
    ['vms/a/ns', { kind: 'vm', name: 'a', namespace: 'ns', legacy: false }],
    ['vmis/a', { kind: 'vmi', name: 'a', legacy: false }],
    ['VirtualMachine/a', { kind: 'vm', name: 'a', legacy: false }],
    ['virtualmachines/a', { kind: 'vm', name: 'a', legacy: false }],
    ['virtualmachineinstance/a', { kind: 'vmi', name: 'a', legacy: false }],
    ['VirtualMachineInstances/a', { kind: 'vmi', name: 'a', legacy: false }],
    // legacy type/name.namespace: the namespace after the last dot
    ['vmi/testvmi.mynamespace', { kind: 'vmi', name: 'testvmi', namespace: 'mynamespace', legacy: true }],
    ['vm/my.vm.ns', { kind: 'vm', name: 'my.vm', namespace: 'ns', legacy: true }],
    ['vmi/testvmi.', { kind: 'vmi', name: 'testvmi', legacy: true }],
    // a namespace given: a dot stays in the name
    ['vm/my.vm/ns', { kind: 'vm', name: 'my.vm', namespace: 'ns', legacy: false }],
  ])('reads %s', (text, want) => {
    expect(parseTarget(text)).toEqual(want);
  });

  it.each([
    ['', 'target cannot be empty: write type/name[/namespace], e.g. vmi/testvmi or vm/testvm/mynamespace'],
    [
      'testvmi',
      "target must contain type and name separated by '/' (got 'testvmi'): write type/name[/namespace], e.g. vmi/testvmi or vm/testvm/mynamespace",
    ],
    [
      'vmi/a/b/c',
      "target is not valid with more than two '/' (got 'vmi/a/b/c'): write type/name[/namespace], e.g. vmi/testvmi or vm/testvm/mynamespace",
    ],
    ['vmi/a/', "namespace cannot be empty (got 'vmi/a/'): drop the last '/' or name the namespace"],
    ['pod/a', "unsupported resource type 'pod': use vm (virtualmachine) or vmi (virtualmachineinstance)"],
    ['/a', "unsupported resource type '': use vm (virtualmachine) or vmi (virtualmachineinstance)"],
    [
      'vmi/',
      "name cannot be empty (got 'vmi/'): write type/name[/namespace], e.g. vmi/testvmi or vm/testvm/mynamespace",
    ],
    [
      'vmi//ns',
      "name cannot be empty (got 'vmi//ns'): write type/name[/namespace], e.g. vmi/testvmi or vm/testvm/mynamespace",
    ],
    [
      'vmi/.ns',
      "name cannot be empty (got 'vmi/.ns'): write type/name[/namespace], e.g. vmi/testvmi or vm/testvm/mynamespace",
    ],
  ])('refuses %j', (text, message) => {
    expect(usage(() => parseTarget(text))).toBe(message);
  });
});

const PORT_FORM = 'write [protocol/]localPort[:targetPort], e.g. 8080, 8080:80 or udp/5353:53';

describe('parsePort', () => {
  it.each<[string, ForwardedPort]>([
    ['8080', tcp(8080)],
    ['8080:80', tcp(8080, 80)],
    ['tcp/22', tcp(22)],
    ['TCP/2222:22', tcp(2222, 22)],
    ['udp/53', udp(53)],
    ['udp/5353:53', udp(5353, 53)],
    ['0:80', tcp(0, 80)],
    ['65535:1', tcp(65535, 1)],
  ])('reads %s', (text, want) => {
    expect(parsePort(text)).toEqual(want);
  });

  it.each([
    ['sctp/80', `unknown protocol 'sctp' in 'sctp/80': use tcp/ (the default) or udp/; ${PORT_FORM}`],
    ['/80', `unknown protocol '' in '/80': use tcp/ (the default) or udp/; ${PORT_FORM}`],
    ['tcp/udp/80', `invalid port 'tcp/udp/80': more than one '/'; ${PORT_FORM}`],
    ['', `invalid port '': missing local and/or remote port; ${PORT_FORM}`],
    ['udp/', `invalid port 'udp/': missing local and/or remote port; ${PORT_FORM}`],
    [':80', `invalid port ':80': missing local port (0 picks a free one, as in 0:80); ${PORT_FORM}`],
    ['8080:', `invalid port '8080:': missing target port after ':'; ${PORT_FORM}`],
    ['1:2:3', `invalid port '1:2:3': more than one ':'; ${PORT_FORM}`],
    [
      'http',
      `invalid local port 'http' in 'http': a local port is 0 to 65535 (0 picks a free port); ${PORT_FORM}`,
    ],
    ['-1', `invalid local port '-1' in '-1': a local port is 0 to 65535 (0 picks a free port); ${PORT_FORM}`],
    [
      '65536',
      `invalid local port '65536' in '65536': a local port is 0 to 65535 (0 picks a free port); ${PORT_FORM}`,
    ],
    ['8080:0', `invalid target port '0' in '8080:0': a target port is 1 to 65535; ${PORT_FORM}`],
    ['8080:x', `invalid target port 'x' in '8080:x': a target port is 1 to 65535; ${PORT_FORM}`],
    ['0', "invalid port '0': port 0 needs a target port, as in 0:80"],
  ])('refuses %j', (text, message) => {
    expect(usage(() => parsePort(text))).toBe(message);
  });
});

describe('parseForwardArgs', () => {
  it('reads a target and several ports', () => {
    expect(parseForwardArgs(['vm/a/ns', '8080:80', 'udp/53'], false)).toEqual({
      target: { kind: 'vm', name: 'a', namespace: 'ns', legacy: false },
      ports: [tcp(8080, 80), udp(53)],
    });
  });

  it.each([
    [
      ['vmi/a'],
      false,
      'port-forward needs a target and at least one port (got 1 argument(s)): write port-forward type/name[/namespace] [protocol/]localPort[:targetPort]..., e.g. port-forward vmi/testvmi 8080:80',
    ],
    [
      ['vmi/a', '22', '80'],
      true,
      'only one port supported when forwarding to stdout (got 2): pass a single port with --stdio',
    ],
  ])('refuses %j (stdio %p)', (args, stdio, message) => {
    expect(usage(() => parseForwardArgs(args, stdio))).toBe(message);
  });
});

describe('portForwardPath', () => {
  const SUB = '/apis/subresources.kubevirt.io/v1/namespaces';
  it.each([
    ['vmi', tcp(8080, 22), `${SUB}/ns/virtualmachineinstances/v/portforward/22`, 'vmi/v/ns port 22'],
    ['vmi', udp(5353, 53), `${SUB}/ns/virtualmachineinstances/v/portforward/53/udp`, 'vmi/v/ns port 53/udp'],
    ['vm', tcp(80), `${SUB}/ns/virtualmachines/v/portforward/80`, 'vm/v/ns port 80'],
    ['vm', udp(69), `${SUB}/ns/virtualmachines/v/portforward/69/udp`, 'vm/v/ns port 69/udp'],
  ] as const)('%s %j → %s', (kind, port, path, text) => {
    const t = { kind, name: 'v', namespace: 'ns' };
    expect(portForwardPath(t, port)).toBe(path);
    expect(describeForward(t, port)).toBe(text);
  });
});
