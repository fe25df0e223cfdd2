/**
 * The admission webhooks the api serves, by the paths of lib/kubevirt/webhooks.ts: the mutators of mutate.ts and
 * the validators of lib/kubevirt/validation, with the feature gates and settings of the cluster's KubeVirt CR (cluster-config.ts; KubeVirt's defaults while there is none).
 * The objects arrive with kubevirt.io names (the rewriter's webhook proxy restores them). The VM and migration
 * rules need the VMI (and the namespace's migrations): `lookup` reads them. A VMI update from virt-handler's
 * service account carries the node its token is bound to (the `authentication.kubernetes.io/node-name` user
 * extra), which the NodeRestriction rules check (vmi-update-admitter.go). The pod eviction interceptors read
 * and mark through `lookup.eviction` (pod-eviction.ts). The KubeVirt CR's webhooks are the operator's, as in
 * KubeVirt.
 */
import {
  asMigration,
  asVirtualMachine,
  asVirtualMachineInstance,
  type KubeVirt,
  type VirtualMachine,
  type VirtualMachineInstance,
  type VirtualMachineInstanceMigration,
} from '../../kubevirt/index.ts';
import {
  configuringKubeVirt,
  validateMigrationCreate,
  validateMigrationUpdate,
  validateVm,
  validateVmiCreate,
  validateVmiUpdate,
  type RunningVmi,
  type ValidationContext,
  type VmiUpdateContext,
} from '../../kubevirt/validation/index.ts';
import { clusterOf } from '../../kubevirt/validation/context.ts';
import { WEBHOOKS } from '../../kubevirt/webhooks.ts';
import type { Clock } from '../../kernel/clock.ts';
import type { Logger } from '../../kernel/log/log.ts';
import type { Admitter } from '../../kubevirt/admission/admit.ts';
import { clusterConfigSource } from './cluster-config.ts';
import { mutateMigration, mutateVm, mutateVmi, type MutateContext } from './mutate.ts';
import { admitPodEviction, type EvictionIo } from './pod-eviction.ts';
import { deniedWith, type AdmissionRequest, type Verdict } from '../../kubevirt/admission/review.ts';

export interface AdmissionLookup {
  vmi(namespace: string, name: string): Promise<VirtualMachineInstance | undefined>;
  migrations(namespace: string): Promise<VirtualMachineInstanceMigration[]>;
  /** The KubeVirt CRs of the api's namespace (one of them configures the cluster). */
  installKubeVirts(): readonly KubeVirt[];
  /** The pod eviction interceptors' reads and writes, live. */
  readonly eviction: EvictionIo;
}

export interface AdmittersOptions {
  readonly clock: Clock;
  readonly uuid: () => string;
  /** The user is one of the module's own service accounts. */
  readonly isOwnServiceAccount: (user: string) => boolean;
  /** The user is virt-handler's service account (one of the own ones). */
  readonly isHandlerServiceAccount: (user: string) => boolean;
  readonly lookup: AdmissionLookup;
  readonly log: Logger;
}

/** The user extra a token bound to a Node (or to a Pod on one) carries: the node's name. */
export const NODE_NAME_EXTRA = 'authentication.kubernetes.io/node-name';

/** The VMI update context: who asks, and for virt-handler the node of its token. */
function vmiUpdateContext(
  base: ValidationContext,
  req: AdmissionRequest,
  o: AdmittersOptions,
): VmiUpdateContext {
  const user = req.userInfo.username ?? '';
  const own = o.isOwnServiceAccount(user);
  if (!o.isHandlerServiceAccount(user)) return { ...base, isKubevirtServiceAccount: own };
  const nodeName = req.userInfo.extra?.[NODE_NAME_EXTRA]?.[0];
  return { ...base, isKubevirtServiceAccount: own, virtHandler: { nodeName } };
}

/** The VM's VMI as the VM rules want it: present and not being deleted. */
async function runningVmi(
  lookup: AdmissionLookup,
  vm: VirtualMachine,
  ns: string,
): Promise<RunningVmi | undefined> {
  const vmi = await lookup.vmi(ns, vm.metadata.name ?? '');
  if (vmi === undefined || (vmi.metadata.deletionTimestamp ?? '') !== '') return undefined;
  const state = vmi.status?.migrationState;
  return {
    spec: vmi.spec,
    migrating: state !== undefined && state.completed !== true && state.startTimestamp !== undefined,
  };
}

export function admitters(o: AdmittersOptions): Record<string, Admitter> {
  const own = (req: AdmissionRequest): boolean => o.isOwnServiceAccount(req.userInfo.username ?? '');
  const config = clusterConfigSource(() => configuringKubeVirt(o.lookup.installKubeVirts()), o.log);
  const mutation = (req: AdmissionRequest): MutateContext => ({
    defaults: clusterOf(config()),
    now: new Date(o.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    uuid: o.uuid,
    fromOwnServiceAccount: own(req),
  });
  const vmi = (req: AdmissionRequest): VirtualMachineInstance =>
    asVirtualMachineInstance(req.object, 'request.object');
  const oldVmi = (req: AdmissionRequest): VirtualMachineInstance =>
    asVirtualMachineInstance(req.oldObject, 'request.oldObject');
  const vmAdmit = async (req: AdmissionRequest): Promise<Verdict> => {
    if (req.operation !== 'CREATE' && req.operation !== 'UPDATE') return { allowed: true };
    const vm = asVirtualMachine(req.object, 'request.object');
    const ns = vm.metadata.namespace ?? req.namespace ?? '';
    const running = await runningVmi(o.lookup, vm, ns);
    const old = req.operation === 'UPDATE' ? asVirtualMachine(req.oldObject, 'request.oldObject') : undefined;
    return deniedWith(
      validateVm(vm, old, {
        ...config(),
        isKubevirtServiceAccount: own(req),
        requestNamespace: ns,
        ...(running !== undefined && { runningVmi: running }),
      }),
    );
  };
  const migrationCreate = async (req: AdmissionRequest): Promise<Verdict> => {
    const m = asMigration(req.object, 'request.object');
    const ns = m.metadata.namespace ?? req.namespace ?? '';
    const [target, migrations] = await Promise.all([
      o.lookup.vmi(ns, m.spec.vmiName ?? ''),
      o.lookup.migrations(ns),
    ]);
    return deniedWith(validateMigrationCreate(m, { ...config(), vmi: target, migrations }));
  };
  return {
    [WEBHOOKS.podEvictionLauncher.path]: {
      kind: 'Eviction',
      specless: true,
      admit: (req) => admitPodEviction(o.lookup.eviction, req, clusterOf(config()).evictionStrategy),
    },
    [WEBHOOKS.vmMutate.path]: { kind: 'VirtualMachine', admit: (req) => mutateVm(req, mutation(req)) },
    [WEBHOOKS.vmiMutate.path]: {
      kind: 'VirtualMachineInstance',
      admit: (req) => mutateVmi(req, mutation(req)),
    },
    [WEBHOOKS.migrationMutateCreate.path]: {
      kind: 'VirtualMachineInstanceMigration',
      admit: mutateMigration,
    },
    [WEBHOOKS.vmValidate.path]: { kind: 'VirtualMachine', admit: vmAdmit },
    [WEBHOOKS.vmiValidateCreate.path]: {
      kind: 'VirtualMachineInstance',
      admit: (req) =>
        deniedWith(validateVmiCreate(vmi(req), { ...config(), isKubevirtServiceAccount: own(req) })),
    },
    [WEBHOOKS.vmiValidateUpdate.path]: {
      kind: 'VirtualMachineInstance',
      admit: (req) =>
        deniedWith(validateVmiUpdate(oldVmi(req), vmi(req), vmiUpdateContext(config(), req, o))),
    },
    [WEBHOOKS.migrationValidateCreate.path]: {
      kind: 'VirtualMachineInstanceMigration',
      admit: migrationCreate,
    },
    [WEBHOOKS.migrationValidateUpdate.path]: {
      kind: 'VirtualMachineInstanceMigration',
      admit: (req) =>
        deniedWith(
          validateMigrationUpdate(
            asMigration(req.oldObject, 'request.oldObject'),
            asMigration(req.object, 'request.object'),
          ),
        ),
    },
  };
}
