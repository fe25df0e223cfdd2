// The proxy's framing as tables: which sockets each tunnel joins, the port map the target publishes, and the
// source reading it back (and refusing a map it cannot trust).
import { describe, expect, it } from '@jest/globals';
import { launcherOnNode } from '../../rpc/index.ts';
import {
  libvirtSocketOnNode,
  parsePortMap,
  parseTargetAddress,
  portMap,
  sourceSockets,
  targetSockets,
  type PortBinding,
} from './framing.ts';

const PODS = '/var/lib/kubelet/pods';
const volume = (pod: string, v: string): string => `${PODS}/${pod}/volumes/kubernetes.io~empty-dir/${v}`;

describe('targetSockets', () => {
  const target = launcherOnNode(PODS, 'tp');
  const libvirt = libvirtSocketOnNode(PODS, 'tp');

  it("finds the launcher's libvirt socket in its libvirt-runtime emptyDir", () => {
    expect(libvirt).toEqual({ root: volume('tp', 'libvirt-runtime'), rel: ['libvirt', 'libvirt-sock'] });
  });

  it.each<[string, boolean, [number, string, string[]][]]>([
    [
      'a migration on shared storage',
      false,
      [
        [0, 'libvirt-runtime', ['libvirt', 'libvirt-sock']],
        [49152, 'public', ['migrationproxy', 'u1-49152-source.sock']],
      ],
    ],
    [
      'a block migration',
      true,
      [
        [0, 'libvirt-runtime', ['libvirt', 'libvirt-sock']],
        [49152, 'public', ['migrationproxy', 'u1-49152-source.sock']],
        [49153, 'public', ['migrationproxy', 'u1-49153-source.sock']],
      ],
    ],
  ])('tunnels %s', (_what, blockMigration, want) => {
    expect(targetSockets(target, libvirt, { uid: 'u1', blockMigration })).toEqual(
      want.map(([tunnelled, v, rel]) => ({ tunnelled, at: { root: volume('tp', v), rel } })),
    );
  });
});

describe('portMap and parsePortMap', () => {
  const three: PortBinding[] = [
    { nodePort: 4135, tunnelled: 0 },
    { nodePort: 4136, tunnelled: 49152 },
    { nodePort: 4137, tunnelled: 49153 },
  ];

  it('writes the map KubeVirt writes, and reads it back in tunnel order', () => {
    expect(portMap(three)).toEqual({ '4135': 0, '4136': 49152, '4137': 49153 });
    expect(parsePortMap({ '4137': 49153, '4135': 0, '4136': 49152 })).toEqual(three);
    expect(parsePortMap(JSON.parse(JSON.stringify(portMap(three))) as Record<string, unknown>)).toEqual(
      three,
    );
  });

  it.each<[string, Record<string, unknown> | undefined]>([
    ['no map yet', undefined],
    ['an empty map', {}],
  ])('reads %s as no tunnels', (_what, map) => {
    expect(parsePortMap(map)).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a key that is no port', { x: 0 }, '"x" is not a port'],
    ['port 0', { '0': 0 }, '"0" is not a port'],
    ['a port past 65535', { '65536': 0 }, '"65536" is not a port'],
    ['a zero-padded port', { '04135': 0 }, '"04135" is not a port'],
    ['a tunnel that is none', { '4135': 0, '4136': 22 }, 'port 4136 carries 22, not one of 0, 49152, 49153'],
    ['a tunnel as text', { '4135': '0' }, 'port 4135 carries "0", not one of 0, 49152, 49153'],
    ['a tunnel twice', { '4135': 0, '4136': 49152, '4137': 49152 }, 'port 49152 is tunnelled twice'],
    ['no libvirt connection', { '4136': 49152 }, 'no port carries the libvirt connection (0)'],
  ])('refuses %s', (_what, map, message) => {
    expect(() => parsePortMap(map)).toThrow(
      expect.objectContaining({
        code: 'KV_ERR_INVALID',
        message: `migrationState.targetDirectMigrationNodePorts: ${message}`,
      }),
    );
  });
});

describe('sourceSockets', () => {
  it('names one socket per tunnel in the source Pod, each dialling its node port', () => {
    const source = launcherOnNode(PODS, 'sp');
    const sockets = sourceSockets(source, 'u1', parsePortMap({ '4140': 0, '4141': 49152 }));
    expect(sockets).toEqual([
      {
        tunnelled: 0,
        nodePort: 4140,
        at: { root: volume('sp', 'public'), rel: ['migrationproxy', 'u1-source.sock'] },
      },
      {
        tunnelled: 49152,
        nodePort: 4141,
        at: { root: volume('sp', 'public'), rel: ['migrationproxy', 'u1-49152-source.sock'] },
      },
    ]);
  });
});

describe('parseTargetAddress', () => {
  it.each<[string | undefined, boolean]>([
    ['10.0.0.7', true],
    ['fd00::7', true],
    ['node-2', false],
    ['', false],
    [undefined, false],
  ])('%j is an address to dial: %s', (address, ok) => {
    if (ok) expect(parseTargetAddress(address)).toBe(address);
    else
      expect(() => parseTargetAddress(address)).toThrow(expect.objectContaining({ code: 'KV_ERR_INVALID' }));
  });
});
