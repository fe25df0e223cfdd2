/**
 * KubeVirt's node labels for a set of host facts (kubevirt pkg/virt-handler/node-labeller node_labeller.go,
 * api/v1 types.go label prefixes), for the handler to put on its Node. Pure.
 */
import { NODE_LABEL_PREFIXES as LABEL, type NodeFacts } from '../../rpc/index.ts';

/** A label name part is at most 63 characters of [A-Za-z0-9._-], starting and ending alphanumeric. */
const NAME_PART = /^[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$/;

export function nodeLabels(nodeFacts: NodeFacts): Record<string, string> {
  const out: Record<string, string> = {};
  const flag = (prefix: string, names: readonly string[]): void => {
    for (const n of names) if (NAME_PART.test(n)) out[`${prefix}${n}`] = 'true';
  };
  flag(LABEL.cpuModel, nodeFacts.cpuModels);
  flag(LABEL.cpuFeature, nodeFacts.cpuFeatures);
  flag(LABEL.machineType, nodeFacts.machineTypes);
  flag(LABEL.hyperv, nodeFacts.hypervFeatures);
  if (nodeFacts.hostModel !== undefined) {
    flag(LABEL.hostModelCpu, [nodeFacts.hostModel.name]);
    flag(LABEL.hostModelRequiredFeature, nodeFacts.hostModel.requiredFeatures);
    if (nodeFacts.hostModel.vendor !== '') flag(LABEL.cpuVendor, [nodeFacts.hostModel.vendor]);
  }
  if (nodeFacts.tsc !== undefined) {
    out[LABEL.tscFrequency] = String(nodeFacts.tsc.frequency);
    out[LABEL.tscScalable] = String(nodeFacts.tsc.scalable);
  }
  if (nodeFacts.sev) out[LABEL.sev] = 'true';
  return out;
}
