/** One generator per kind for the round-trip property tests (see generators.ts for the two sides). */
import type { RuleIndex } from '../rules/rule-index.ts';
import type { ObjectGenerator, Side } from './generators.ts';
import type { Prng } from './prng.ts';

type Obj = Record<string, unknown>;
export type KindGenerator = (g: ObjectGenerator, ctx: GenContext) => Obj;

interface GenContext {
  readonly rng: Prng;
  readonly rules: RuleIndex;
  readonly side: Side;
}

function groupName(ctx: GenContext, original: string): string {
  return ctx.side === 'client' ? original : (ctx.rules.groupByOriginal.get(original)?.renamed ?? original);
}

function plural(ctx: GenContext, p: string): string {
  return ctx.side === 'client' ? p : ctx.rules.rules.resourceTypePrefix + p;
}

/** A rule naming groups and resources: groups with rules, '*', or none. */
function resourceRule(ctx: GenContext): Obj {
  const { groupRule, resources } = ctx.rng.pick(ctx.rules.rules.groups);
  const names = resources.map((r) => plural(ctx, r.plural));
  const picked = ctx.rng.some([...names, ...names.map((n) => `${n}/status`), 'pods', '*'], 3);
  const apiGroups = ctx.rng.pick([
    [groupName(ctx, groupRule.group)],
    ['', groupName(ctx, groupRule.group)],
    ['*'],
    ['apps'],
  ]);
  return { apiGroups, resources: picked, verbs: ['get'] };
}

function podSpec(objectGenerator: ObjectGenerator, ctx: GenContext): Obj {
  const term = (): Obj => ({ labelSelector: objectGenerator.selector(), topologyKey: 'kubernetes.io/hostname' });
  return {
    nodeSelector: objectGenerator.keyMap('labels'),
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: objectGenerator.selector()['matchExpressions'] }],
        },
      },
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: term() }],
      },
      podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: ctx.rng.bool() ? [term()] : [] },
    },
    containers: [{ name: 'compute', image: 'x' }],
  };
}

const workload =
  (kind: string): KindGenerator =>
  (g, ctx) => ({
    apiVersion: 'apps/v1',
    kind,
    metadata: g.metadata(),
    spec: {
      selector: g.selector(),
      template: {
        metadata: { labels: g.keyMap('labels'), annotations: g.keyMap('annotations') },
        spec: podSpec(g, ctx),
      },
    },
  });

function crd(objectGenerator: ObjectGenerator, ctx: GenContext): Obj {
  const { groupRule, resources } = ctx.rng.pick(ctx.rules.rules.groups);
  const r = ctx.rng.pick(resources);
  const k = ctx.side === 'client' ? '' : ctx.rules.rules.kindPrefix;
  const names = {
    kind: k + r.kind,
    listKind: k + r.listKind,
    plural: plural(ctx, r.plural),
    singular: plural(ctx, r.singular),
    shortNames: r.shortNames.map((s) => (ctx.side === 'client' ? s : ctx.rules.rules.shortNamePrefix + s)),
    ...(r.categories.length > 0 && {
      categories: ctx.side === 'client' ? r.categories : ctx.rules.rules.categories,
    }),
  };
  const group = groupName(ctx, groupRule.group);
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { ...objectGenerator.metadata(), name: `${names.plural}.${group}` },
    spec: { group, names, scope: 'Namespaced' },
  };
}

function webhookConfig(kind: string): KindGenerator {
  return (g, ctx) => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind,
    metadata: g.metadata(),
    webhooks: [
      {
        name: 'w.kubevirt.io',
        clientConfig: {
          service: { name: 'virt-api', path: ctx.rng.pick([...ctx.rules.webhooks.keys(), '/other']) },
        },
        rules: [resourceRule(ctx)],
        objectSelector: g.selector(),
      },
    ],
  });
}

export const KIND_GENERATORS: Readonly<Record<string, KindGenerator>> = {
  CustomResource: (g) => g.customResource(),
  CustomResourceList: (g) => g.customResourceList(),
  Pod: (g, ctx) => ({ apiVersion: 'v1', kind: 'Pod', metadata: g.metadata(), spec: podSpec(g, ctx) }),
  PodList: (g, ctx) => ({
    apiVersion: 'v1',
    kind: 'PodList',
    items: [{ metadata: g.metadata(), spec: podSpec(g, ctx) }],
  }),
  Deployment: workload('Deployment'),
  StatefulSet: workload('StatefulSet'),
  DaemonSet: workload('DaemonSet'),
  ReplicaSet: workload('ReplicaSet'),
  Job: workload('Job'),
  Service: (g) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: g.metadata(),
    spec: { selector: g.keyMap('labels') },
  }),
  PodDisruptionBudget: (g) => ({
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: g.metadata(),
    spec: { selector: g.selector() },
  }),
  PersistentVolumeClaim: (g) => {
    const { apiVersion, kind } = g.typeOf();
    const apiGroup = apiVersion.split('/')[0];
    return {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: g.metadata(),
      spec: { dataSourceRef: { apiGroup, kind, name: 'src' } },
    };
  },
  Event: (g) => ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: g.metadata(),
    involvedObject: g.ref(),
    reason: 'R',
  }),
  ClusterRole: (g, ctx) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: g.metadata(),
    rules: [resourceRule(ctx), resourceRule(ctx)],
  }),
  Role: (g, ctx) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: g.metadata(),
    rules: [resourceRule(ctx)],
  }),
  ValidatingWebhookConfiguration: webhookConfig('ValidatingWebhookConfiguration'),
  MutatingWebhookConfiguration: webhookConfig('MutatingWebhookConfiguration'),
  ValidatingAdmissionPolicy: (g, ctx) => ({
    kind: 'ValidatingAdmissionPolicy',
    metadata: g.metadata(),
    spec: { matchConstraints: { resourceRules: [resourceRule(ctx)] } },
  }),
  CustomResourceDefinition: crd,
  ConfigMap: (g) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: g.metadata(),
    data: { 'kubevirt.io': 'x' },
  }),
  Node: (g) => ({ apiVersion: 'v1', kind: 'Node', metadata: g.metadata(), status: {} }),
};
