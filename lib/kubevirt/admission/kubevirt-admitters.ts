/**
 * The KubeVirt CR webhooks (/kubevirt-validate-create, -update, -delete), which virt-operator serves in
 * KubeVirt (pkg/virt-operator/webhooks) and the operator's webhook server here (lib/operator/webhooks). The
 * rules are the pure ones of lib/kubevirt/validation/kubevirt-cr.ts; this file reads what they need through
 * KubeVirtLookup: the cluster's KubeVirt CRs (create; delete when the request carries no object), whether any
 * VMI or VM exists (delete), and dry-run creates of the placement probes (update). As in KubeVirt, a failed
 * lookup or an object that does not decode is a 400 carrying the error's message. KubeVirt's ValidateSchema is
 * left to the CRD's schema, which kube-apiserver applies before the validating webhooks.
 */
import type { KubeVirt } from '../index.ts';
import {
  blocksUninstall,
  kubeVirtCreateRefusal,
  kubeVirtUpdateWarnings,
  placementChecks,
  placementProbe,
  readKubeVirt,
  uninstallRefusal,
  validateKubeVirtUpdate,
  type KubeVirtView,
  type PlacementCheck,
  type PlacementProbe,
} from '../validation/index.ts';
import { WEBHOOKS } from '../webhooks.ts';
import { errorMessage } from '../../kernel/errors/errors.ts';
import type { Admitter } from './admit.ts';
import { deniedWith, type AdmissionRequest, type Verdict } from './review.ts';

export interface KubeVirtLookup {
  /** The KubeVirt CRs of `namespace`, or of the whole cluster when it is undefined. */
  kubevirts(namespace?: string): Promise<KubeVirt[]>;
  /** Whether any VirtualMachineInstance exists in the cluster. */
  anyVmi(): Promise<boolean>;
  /** Whether any VirtualMachine exists in the cluster. */
  anyVm(): Promise<boolean>;
  /** Creates `probe` in `namespace` with dryRun=All: undefined when accepted, else the refusal's message. */
  dryRunCreate(namespace: string, probe: PlacementProbe): Promise<string | undefined>;
}

const KUBEVIRT = 'KubeVirt';
/** The versions of kubevirt.io/kubevirts KubeVirt's webhooks accept (v1.ApiSupportedWebhookVersions). */
const VERSIONS: readonly string[] = ['v1alpha3', 'v1'];

const badRequest = (message: string): Verdict => ({ allowed: false, code: 400, message });

/** KubeVirt's ToAdmissionResponseError for whatever the admitter throws (a lookup, a decoding failure). */
const orBadRequest =
  (admit: (req: AdmissionRequest) => Promise<Verdict>) =>
  async (req: AdmissionRequest): Promise<Verdict> => {
    try {
      return await admit(req);
    } catch (err) {
      return badRequest(errorMessage(err));
    }
  };

function wrongResource(req: AdmissionRequest): boolean {
  const r = req.resource;
  if (r === undefined) return false;
  return r.group !== 'kubevirt.io' || r.resource !== 'kubevirts' || !VERSIONS.includes(r.version);
}

async function placementRefusals(
  lookup: KubeVirtLookup,
  namespace: string,
  checks: readonly PlacementCheck[],
): Promise<Partial<Record<PlacementCheck['component'], string>>> {
  const out: Partial<Record<PlacementCheck['component'], string>> = {};
  for (const check of checks) {
    const refusal = await lookup.dryRunCreate(namespace, placementProbe(check));
    if (refusal !== undefined) out[check.component] = refusal;
  }
  return out;
}

/** The KubeVirt being deleted: the request's old object, else the named one (or the first) of its namespace. */
async function deleted(lookup: KubeVirtLookup, req: AdmissionRequest): Promise<KubeVirtView | undefined> {
  if (req.oldObject !== undefined && req.oldObject !== null) return readKubeVirt(req.oldObject);
  const list = await lookup.kubevirts(req.namespace ?? '');
  const name = req.name ?? '';
  const found = name === '' ? list[0] : list.find((k) => k.metadata.name === name);
  if (found === undefined && name !== '') throw new Error(`kubevirts.kubevirt.io "${name}" not found`);
  return found === undefined ? undefined : readKubeVirt(found);
}

/** The three KubeVirt CR webhooks by their paths (lib/kubevirt/webhooks.ts). */
export function kubevirtAdmitters(lookup: KubeVirtLookup): Record<string, Admitter> {
  const create = async (): Promise<Verdict> => {
    const refusal = kubeVirtCreateRefusal((await lookup.kubevirts()).length);
    return refusal === undefined ? { allowed: true } : badRequest(refusal);
  };
  const update = async (req: AdmissionRequest): Promise<Verdict> => {
    if (req.operation !== 'UPDATE') return { allowed: true };
    if (wrongResource(req)) return badRequest("expect resource to be '{kubevirt.io v1 kubevirts}'");
    const newKv = readKubeVirt(req.object);
    const oldKv = readKubeVirt(req.oldObject);
    const refusals = await placementRefusals(lookup, newKv.namespace, placementChecks(oldKv, newKv));
    const verdict = deniedWith(validateKubeVirtUpdate(oldKv, newKv, { placementRefusals: refusals }));
    if (!verdict.allowed) return verdict;
    const warnings = kubeVirtUpdateWarnings(oldKv, newKv);
    return warnings.length > 0 ? { allowed: true, warnings } : verdict;
  };
  const remove = async (req: AdmissionRequest): Promise<Verdict> => {
    const kv = await deleted(lookup, req);
    if (kv === undefined || !blocksUninstall(kv)) return { allowed: true };
    if (await lookup.anyVmi()) return badRequest(uninstallRefusal('Virtual Machine Instances'));
    if (await lookup.anyVm()) return badRequest(uninstallRefusal('Virtual Machines'));
    return { allowed: true };
  };
  return {
    [WEBHOOKS.kubevirtValidateCreate.path]: { kind: KUBEVIRT, admit: orBadRequest(create) },
    [WEBHOOKS.kubevirtValidateUpdate.path]: { kind: KUBEVIRT, admit: orBadRequest(update) },
    [WEBHOOKS.kubevirtValidateDelete.path]: { kind: KUBEVIRT, admit: orBadRequest(remove) },
  };
}
