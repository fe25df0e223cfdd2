/**
 * The node's labels from the node-labeller's output (kubevirt pkg/virt-handler/node-labeller node_labeller.go):
 * every label under KubeVirt's node-labeller prefixes is replaced by what node-labels.json says (labels it no
 * longer lists are removed), others are left alone. Pure, with the file reading beside it.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NODE_LABEL_PREFIXES, NODE_LABELLER_FILES } from '../../rpc/index.ts';

const PREFIXES: readonly string[] = Object.values(NODE_LABEL_PREFIXES);

const isLabellerLabel = (key: string): boolean => PREFIXES.some((p) => key.startsWith(p));

/** The merge patch of metadata.labels that makes the node carry `wanted`; undefined when nothing changes. */
export function labelPatch(
  current: Readonly<Record<string, string>> | undefined,
  wanted: Readonly<Record<string, string>>,
): Record<string, string | null> | undefined {
  const patch: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(wanted)) if (current?.[k] !== v) patch[k] = v;
  for (const k of Object.keys(current ?? {})) if (isLabellerLabel(k) && !(k in wanted)) patch[k] = null;
  return Object.keys(patch).length === 0 ? undefined : patch;
}

/** The labels the node-labeller wrote into dir; undefined when it has not run there. */
export async function readNodeLabels(dir: string): Promise<Record<string, string> | undefined> {
  let text: string;
  try {
    text = await readFile(join(dir, NODE_LABELLER_FILES.labels), 'utf8');
  } catch {
    return undefined;
  }
  const parsed = JSON.parse(text) as unknown;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  return Object.fromEntries(
    Object.entries(parsed).filter(
      (e): e is [string, string] => typeof e[1] === 'string' && isLabellerLabel(e[0]),
    ),
  );
}
