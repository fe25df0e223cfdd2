/**
 * Networks and interface bindings (KubeVirt pkg/network/admitter: validator.go Validate and ValidateCreation,
 * netsource.go, admit.go, binding.go, macvtap.go, passt.go, slirp.go, netiface.go's name checks). The Deckhouse
 * fork allows more than one pod network, so KubeVirt's "more than one interface is connected to a pod network"
 * is not here.
 */
import { defaultNetwork } from '../networks.ts';
import type { Interface, Network } from '../v1/network.ts';
import { child, duplicate, invalid, item, required, type Causes } from './causes.ts';
import { clusterOf, gateEnabled, GATES, type ValidationContext } from './context.ts';
import { interfaceFields } from './vmi-interfaces.ts';
import type { SpecRule } from './rule.ts';

const RESERVED_MAC = '02:00:00:00:00:00';
const STATES: readonly string[] = ['absent', 'up', 'down'];
const q = (s: string): string => JSON.stringify(s);

const ifacePath = (path: string, i: number): string => item(path, ['domain', 'devices', 'interfaces'], i);
const netPath = (path: string, i: number): string => item(path, ['networks'], i);

const podNetworks: SpecRule = (spec, _ctx, path) => {
  const nets = spec.networks ?? [];
  const pods = nets.filter((n) => n.pod !== undefined).length;
  const defaults = nets.filter((n) => n.multus?.default === true).length;
  const f = child(path, 'networks');
  const causes: Causes = [];
  if (defaults > 1) causes.push(invalid(f, 'Multus CNI should only have one default network'));
  if (pods > 0 && defaults > 0) {
    causes.push(invalid(f, 'Pod network cannot be defined when Multus default network is defined'));
  }
  return causes;
};

const networkSources: SpecRule = (spec, _ctx, path) => {
  const nets = spec.networks ?? [];
  const causes = nets.flatMap((n, i) => {
    if (n.pod === undefined && n.multus === undefined)
      return [required(netPath(path, i), 'should have a network type')];
    if (n.pod !== undefined && n.multus !== undefined) {
      return [required(netPath(path, i), 'should have only one network type')];
    }
    return [];
  });
  const unnamed = nets.findIndex((n) => n.multus !== undefined && n.multus.networkName === '');
  if (unnamed >= 0)
    causes.push(required(netPath(path, unnamed), 'CNI delegating plugin must have a networkName'));
  return causes;
};

function stateCauses(iface: Interface, f: string, nets: readonly Network[]): Causes {
  const state = iface.state ?? '';
  const causes: Causes = [];
  if (state !== '' && !STATES.includes(state)) {
    causes.push(invalid(f, `logical ${iface.name} interface state value is unsupported: ${state}`));
  }
  if (iface.sriov !== undefined && (state === 'down' || state === 'up')) {
    causes.push(
      invalid(f, `${q(iface.name)} interface's state ${q(state)} is not supported for SR-IOV NICs`),
    );
  }
  if (state === 'absent' && iface.bridge === undefined) {
    causes.push(
      invalid(f, `${q(iface.name)} interface's state ${q(state)} is supported only for bridge binding`),
    );
  }
  if (state === 'absent' && defaultNetwork(nets)?.name === iface.name) {
    causes.push(
      invalid(f, `${q(iface.name)} interface's state ${q(state)} is not supported on default networks`),
    );
  }
  return causes;
}

const interfaceStates: SpecRule = (spec, _ctx, path) =>
  (spec.domain.devices.interfaces ?? []).flatMap((iface, i) =>
    stateCauses(iface, child(ifacePath(path, i), 'state'), spec.networks ?? []),
  );

const hasBindingMethod = (i: Interface): boolean =>
  [i.bridge, i.slirp, i.masquerade, i.sriov, i.macvtap, i.passt].some((m) => m !== undefined);

function podBindingCauses(
  iface: Interface,
  at: string,
  net: Network | undefined,
  ctx: ValidationContext,
): Causes {
  const name = child(at, 'name');
  const causes: Causes = [];
  if (iface.binding !== undefined && hasBindingMethod(iface)) {
    causes.push(
      invalid(
        child(at, 'binding'),
        `logical ${iface.name} interface cannot have both binding plugin and interface binding method`,
      ),
    );
  }
  if (iface.masquerade !== undefined && net?.pod === undefined) {
    causes.push(invalid(name, 'Masquerade interface only implemented with pod network'));
  }
  if (iface.masquerade !== undefined && iface.macAddress === RESERVED_MAC) {
    causes.push(
      invalid(
        child(at, 'macAddress'),
        'The requested MAC address is reserved for the in-pod bridge. Please choose another one.',
      ),
    );
  }
  if (
    iface.bridge !== undefined &&
    net?.pod !== undefined &&
    !clusterOf(ctx).permitBridgeInterfaceOnPodNetwork
  ) {
    causes.push(invalid(name, 'Bridge on pod network configuration is not enabled under kubevirt-config'));
  }
  return causes;
}

/** Macvtap and Passt: gone since v1.3, so their gates are never on in practice. */
function deprecatedBindingCauses(
  iface: Interface,
  name: string,
  net: Network | undefined,
  ctx: ValidationContext,
): Causes {
  const causes: Causes = [];
  if (iface.macvtap !== undefined) {
    if (!gateEnabled(ctx, GATES.MACVTAP)) causes.push(invalid(name, 'Macvtap feature gate is not enabled'));
    if (net?.multus === undefined)
      causes.push(invalid(name, 'Macvtap interface only implemented with Multus network'));
  }
  if (iface.passt !== undefined) {
    if (!gateEnabled(ctx, GATES.PASST)) causes.push(invalid(name, 'Passt feature gate is not enabled'));
    if (net?.pod === undefined)
      causes.push(invalid(name, 'Passt interface only implemented with pod network'));
  }
  return causes;
}

const interfaceBindings: SpecRule = (spec, ctx, path) => {
  const nets = new Map((spec.networks ?? []).map((n) => [n.name, n]));
  return (spec.domain.devices.interfaces ?? []).flatMap((iface, i) => [
    ...podBindingCauses(iface, ifacePath(path, i), nets.get(iface.name), ctx),
    ...deprecatedBindingCauses(iface, child(ifacePath(path, i), 'name'), nets.get(iface.name), ctx),
  ]);
};

function unique(list: readonly { name: string }[], cause: (i: number, name: string) => Causes): Causes {
  const seen = new Set<string>();
  return list.flatMap((x, i) => {
    const again = seen.has(x.name);
    seen.add(x.name);
    return again ? cause(i, x.name) : [];
  });
}

const namesMatch: SpecRule = (spec, _ctx, path) => {
  const nets = spec.networks ?? [];
  const ifaces = spec.domain.devices.interfaces ?? [];
  const netNames = new Set(nets.map((n) => n.name));
  const ifaceNames = new Set(ifaces.map((n) => n.name));
  const netName = (i: number): string => child(netPath(path, i), 'name');
  const ifaceName = (i: number): string => child(ifacePath(path, i), 'name');
  return [
    ...unique(nets, (i, name) => [
      duplicate(
        netName(i),
        `Network with name ${q(name)} already exists, every network must have a unique name`,
      ),
    ]),
    ...nets.flatMap((n, i) =>
      ifaceNames.has(n.name) ? [] : [required(netName(i), `${netName(i)} '${n.name}' not found.`)],
    ),
    ...unique(ifaces, (i) => [
      duplicate(ifaceName(i), 'Only one interface can be connected to one specific network'),
    ]),
    ...ifaces.flatMap((n, i) =>
      netNames.has(n.name) ? [] : [invalid(ifaceName(i), `${ifaceName(i)} '${n.name}' not found.`)],
    ),
  ];
};

/** netadmitter Validate: what VMI and VM templates are checked with. */
export const networks: readonly SpecRule[] = [
  podNetworks,
  networkSources,
  interfaceStates,
  interfaceBindings,
  namesMatch,
  interfaceFields,
];

/** netadmitter ValidateCreation: slirp is gone since v1.3 (new VMIs and VMs only). */
export const networkCreation: SpecRule = (spec, _ctx, path) =>
  (spec.domain.devices.interfaces ?? []).flatMap((iface, i) =>
    iface.slirp === undefined
      ? []
      : [
          invalid(
            child(ifacePath(path, i), 'slirp'),
            'Slirp interface support has been discontinued since v1.3',
          ),
        ],
  );
