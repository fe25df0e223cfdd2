/**
 * `customizeComponents.flags` as KubeVirt applies them (patches.go flagsToPatches, addFlagsPatch): each
 * component's flags go to the container named after it in its workload, as `--<key lower-cased> <value>`
 * (an empty value: the bare flag), ahead of the generated flags. KubeVirt writes them into the container's
 * command ([binary, ...flags]), which runs before its args; our containers open args with the role
 * (`virt api …`), so the flags go right after the role's words. Either way a generated flag comes later and
 * wins when both name it: flags add, they cannot replace (Deckhouse patches args for that).
 *
 * Two choices where KubeVirt's are Go's: a one-letter key is written `-k` (Go reads `--v` as `-v`, our
 * command line does not), and flags are sorted by name (KubeVirt follows Go's map order, which is random).
 */
import type { Component } from '../config/install-config.ts';
import { WORKLOAD } from '../generate/names.ts';
import { CONTAINERS } from '../generate/layout.ts';
import { customizeError, isObject, type JsonObject } from './json.ts';

interface Target {
  readonly kind: 'Deployment' | 'DaemonSet';
  readonly name: string;
  readonly container: string;
}

const TARGETS: readonly (readonly [Component, Target])[] = [
  ['virt-api', { kind: 'Deployment', name: WORKLOAD['virt-api'], container: CONTAINERS.api }],
  [
    'virt-controller',
    { kind: 'Deployment', name: WORKLOAD['virt-controller'], container: CONTAINERS.controller },
  ],
  ['virt-handler', { kind: 'DaemonSet', name: WORKLOAD['virt-handler'], container: CONTAINERS.handler }],
];

/** The command-line words of a component's flags, by name. */
export function flagArgs(flags: Readonly<Record<string, string>>): string[] {
  return Object.entries(flags)
    .map(([key, value]): [string, string] => [key.toLowerCase(), value])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .flatMap(([name, value]) => [
      name.length === 1 ? `-${name}` : `--${name}`,
      ...(value === '' ? [] : [value]),
    ]);
}

const sameName = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

function containersOf(doc: JsonObject): unknown[] | undefined {
  const spec = doc['spec'];
  const template = isObject(spec) ? spec['template'] : undefined;
  const podSpec = isObject(template) ? template['spec'] : undefined;
  const containers = isObject(podSpec) ? podSpec['containers'] : undefined;
  return Array.isArray(containers) ? containers : undefined;
}

/**
 * The workload with its component's flags added, for the object KubeVirt matched as `kind`/`name` (before any
 * patch renamed it); any other object is returned as it is. doc is not touched.
 */
export function withFlags<T extends JsonObject>(
  doc: T,
  object: { readonly kind: string; readonly name: string },
  flags: Readonly<Record<Component, Readonly<Record<string, string>>>>,
): T {
  const [component, target] =
    TARGETS.find(([, t]) => sameName(t.kind, object.kind) && sameName(t.name, object.name)) ?? [];
  if (component === undefined || target === undefined || Object.keys(flags[component]).length === 0)
    return doc;
  const out = structuredClone(doc);
  const name = target.container;
  const container = containersOf(out)?.find((c) => isObject(c) && c['name'] === name);
  if (!isObject(container))
    throw customizeError(`flags of ${component}: the ${object.kind} has no container ${name}`);
  const args = Array.isArray(container['args']) ? container['args'] : [];
  const firstFlag = args.findIndex((a) => typeof a === 'string' && a.startsWith('-'));
  args.splice(firstFlag < 0 ? args.length : firstFlag, 0, ...flagArgs(flags[component]));
  container['args'] = args;
  return out;
}
