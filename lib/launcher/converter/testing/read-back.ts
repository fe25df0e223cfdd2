/**
 * Comparing domain XML we gave libvirt with libvirt's read-back of it (test code, pure). readBackMismatches:
 * is it the same domain (virt type, name, UUID, device aliases)? missingFromReadBack: what the given XML says
 * that the read-back does not, as `path@attribute=value` and `path = text` lines, so a test can list what
 * libvirt rewrites on purpose and fail on anything else it dropped. Elements that repeat are told apart by
 * their device alias, else their `name`, `id`, or `type` and `index` attributes: `/domain/devices/disk[ua-root]`,
 * `/domain/clock/timer[rtc]`, `/domain/devices/controller[usb,0]`.
 */
import { child, children, parseXml, type XmlNode } from '../../xml-read.ts';

const textAt = (node: XmlNode, path: string): string | undefined => child(node, path)?.text;

function aliases(domain: XmlNode): string[] {
  const devices = child(domain, 'devices')?.children ?? [];
  return devices.flatMap((d) => children(d, 'alias').map((a) => a.attrs['name'] ?? ''));
}

/** What says the read-back is not the domain defined: virt type, name, UUID (when given), device aliases. */
export function readBackMismatches(defined: string, readBack: string): string[] {
  const ours = parseXml(defined);
  const theirs = parseXml(readBack);
  const out: string[] = [];
  const same = (what: string, a: string | undefined, b: string | undefined): void => {
    if (a !== b) out.push(`${what}: defined ${JSON.stringify(a)}, read back ${JSON.stringify(b)}`);
  };
  same('virt type', ours.attrs['type'], theirs.attrs['type']);
  same('name', textAt(ours, 'name'), textAt(theirs, 'name'));
  if (textAt(ours, 'uuid') !== undefined) same('uuid', textAt(ours, 'uuid'), textAt(theirs, 'uuid'));
  const kept = new Set(aliases(theirs));
  for (const alias of aliases(ours)) if (!kept.has(alias)) out.push(`device alias ${alias} is not read back`);
  return out;
}

function keyOf(node: XmlNode): string {
  const alias = child(node, 'alias')?.attrs['name'];
  const { name, id, type, index } = node.attrs;
  if (alias !== undefined) return `[${alias}]`;
  if (name !== undefined) return `[${name}]`;
  if (id !== undefined) return `[${id}]`;
  if (type !== undefined && index !== undefined) return `[${type},${index}]`;
  return '';
}

function lines(node: XmlNode, parent: string, out: Set<string>): Set<string> {
  const path = `${parent}/${node.name}${keyOf(node)}`;
  out.add(path);
  for (const [k, v] of Object.entries(node.attrs)) out.add(`${path}@${k}=${v}`);
  if (node.text !== '') out.add(`${path} = ${node.text}`);
  for (const c of node.children) lines(c, path, out);
  return out;
}

/** Every line of the given XML the read-back lacks, in document order. */
export function missingFromReadBack(given: string, readBack: string): string[] {
  const kept = lines(parseXml(readBack), '', new Set());
  return [...lines(parseXml(given), '', new Set())].filter((l) => !kept.has(l));
}
