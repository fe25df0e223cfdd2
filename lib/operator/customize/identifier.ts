/**
 * The `kubevirt.io/customizer-identifier` annotation KubeVirt puts on every object it customizes: a SHA-1 of
 * the customizations (patches.go getHash), so a change of patches or flags changes the objects. The hash is
 * taken over the Go JSON of `spec.customizeComponents`, byte for byte: patches sorted by the length of their
 * patch text (stable), fields in the Go struct's order, empty lists and maps left out, map keys sorted, and
 * `<`, `>`, `&`, U+2028, U+2029 escaped as Go's encoder does.
 *
 * One case cannot be told apart here: KubeVirt hashes `flags: {}` as given, while an InstallConfig whose flags
 * are all empty is hashed as if the resource had no `flags`.
 */
import { createHash } from 'node:crypto';
import type { ComponentPatch, InstallConfig } from '../config/install-config.ts';

export const CUSTOMIZER_ANNOTATION = 'kubevirt.io/customizer-identifier';

/** The patches in the order KubeVirt applies and hashes them: shortest patch text first (UTF-8 bytes), stable. */
export function byPatchLength<T extends { readonly patch: ComponentPatch }>(patches: readonly T[]): T[] {
  const size = (p: T): number => Buffer.byteLength(p.patch.patch, 'utf8');
  return [...patches].sort((a, b) => size(a) - size(b));
}

function sortedMap(m: Readonly<Record<string, string>>): Record<string, string> | undefined {
  const keys = Object.keys(m).sort();
  return keys.length === 0 ? undefined : Object.fromEntries(keys.map((k) => [k, m[k] ?? '']));
}

const GO_ESCAPES: Readonly<Record<string, string>> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** The customizations' JSON as Go's encoding/json writes v1.CustomizeComponents. */
export function customizationsJson(c: Pick<InstallConfig, 'patches' | 'flags'>): string {
  const patches = byPatchLength(c.patches.map((patch) => ({ patch }))).map(({ patch: p }) => ({
    resourceName: p.resourceName,
    resourceType: p.resourceType,
    patch: p.patch,
    type: p.type,
  }));
  const flags = {
    api: sortedMap(c.flags['virt-api']),
    controller: sortedMap(c.flags['virt-controller']),
    handler: sortedMap(c.flags['virt-handler']),
  };
  const anyFlags = Object.values(flags).some((m) => m !== undefined);
  const doc = { patches: patches.length === 0 ? undefined : patches, flags: anyFlags ? flags : undefined };
  return JSON.stringify(doc).replace(/[<>&\u2028\u2029]/g, (ch) => GO_ESCAPES[ch] ?? ch);
}

/** The annotation's value: hex SHA-1 of customizationsJson. */
export function customizerHash(c: Pick<InstallConfig, 'patches' | 'flags'>): string {
  return createHash('sha1').update(customizationsJson(c)).digest('hex');
}
