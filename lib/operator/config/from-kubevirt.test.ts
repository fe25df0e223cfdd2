import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { StatusError, type StatusCause } from '../../kernel/errors/errors.ts';
import { goldens } from '../../kernel/testing/golden.ts';
import type { KubeVirt } from '../../kubevirt/v1/objects.ts';
import {
  config,
  kubevirtCr,
  withConfig,
  withSpec,
  type KubeVirtChange,
} from '../../kubevirt/validation/testing/kubevirts.ts';
import { installConfigFrom, type OperatorEnv } from './from-kubevirt.ts';
import type { InstallConfig } from './install-config.ts';

const golden = goldens(import.meta.url);
const DIGEST = `sha256:${'ab12'.repeat(16)}`;
const ENV: OperatorEnv = {
  namespace: 'd8-virtualization',
  image: 'registry.example/kubevirt-ts:v0.1.0',
  mode: 'deckhouse',
};
const DAY = 24 * 3600;

const spec =
  (key: keyof KubeVirt['spec'], value: unknown): KubeVirtChange =>
  (kv) => {
    (kv.spec as Record<string, unknown>)[key] = value;
  };
const developer =
  (dev: Record<string, unknown>): KubeVirtChange =>
  (kv) => {
    config(kv)['developerConfiguration'] = dev;
  };
const patches = (...list: { type: string; patch: string }[]): KubeVirtChange =>
  spec('customizeComponents', {
    patches: list.map((p) => ({ resourceName: 'virt-api', resourceType: 'Deployment', ...p })),
  });

/** The causes (and message) installConfigFrom refuses kv with. */
function refusal(kv: KubeVirt, env: OperatorEnv = ENV): { message: string; causes: StatusCause[] } {
  try {
    installConfigFrom(kv, env);
  } catch (err) {
    if (!(err instanceof StatusError)) throw err;
    expect(err.httpCode).toBe(422);
    return { message: err.message, causes: err.status.details?.causes ?? [] };
  }
  throw new Error('installConfigFrom accepted the resource');
}

describe('installConfigFrom', () => {
  it.each<[string, KubeVirtChange[], Partial<OperatorEnv>, Partial<InstallConfig>]>([
    [
      'the fixture: the operator image, KubeVirt defaults, the gates and patch given',
      [],
      {},
      {
        namespace: 'd8-virtualization',
        mode: 'deckhouse',
        image: 'registry.example/kubevirt-ts:v0.1.0',
        launcherImage: 'registry.example/kubevirt-ts:v0.1.0',
        version: 'v0.1.0',
        imagePullPolicy: 'IfNotPresent',
        imagePullSecrets: [],
        featureGates: ['HotplugVolumes', 'Snapshot'],
        useEmulation: true,
        verbosity: { 'virt-api': 2, 'virt-controller': 2, 'virt-handler': 2 },
        infraReplicas: 2,
        infraPlacement: { nodeSelector: {}, tolerations: [] },
        handler: { hostNetwork: true, healthPort: 4100, consoleServerPort: 4101 },
        certificateRotation: {
          caValiditySeconds: 2 * DAY,
          caRenewBeforeSeconds: 34_560,
          certValiditySeconds: DAY,
          certRenewBeforeSeconds: 17_280,
        },
        flags: { 'virt-api': {}, 'virt-controller': {}, 'virt-handler': {} },
        patches: [{ resourceName: 'virt-api', resourceType: 'Deployment', patch: '{}', type: 'strategic' }],
        uninstallStrategy: 'RemoveWorkloads',
      },
    ],
    [
      'spec.imageTag replaces the tag and is the version',
      [spec('imageTag', 'v0.2.0')],
      {},
      { image: 'registry.example/kubevirt-ts:v0.2.0', version: 'v0.2.0' },
    ],
    [
      'spec.imageRegistry replaces the registry',
      [spec('imageRegistry', 'mirror.local:5000/kv')],
      {},
      { image: 'mirror.local:5000/kv/kubevirt-ts:v0.1.0', version: 'v0.1.0' },
    ],
    [
      'a digest-only operator image: the declared version',
      [],
      { image: `registry.example/kubevirt-ts@${DIGEST}`, version: '1a2b3c4' },
      { image: `registry.example/kubevirt-ts@${DIGEST}`, version: '1a2b3c4' },
    ],
    [
      'a digest-only operator image without a declared version: the digest short',
      [spec('imageRegistry', 'mirror.local')],
      { image: `registry.example/kubevirt-ts@${DIGEST}` },
      { image: `mirror.local/kubevirt-ts@${DIGEST}`, version: 'ab12ab12ab12' },
    ],
    [
      'spec.imageTag on a digest-only image drops the digest',
      [spec('imageTag', 'v0.3.0')],
      { image: `registry.example/kubevirt-ts@${DIGEST}`, version: '1a2b3c4' },
      { image: 'registry.example/kubevirt-ts:v0.3.0', version: 'v0.3.0' },
    ],
    [
      'an operator image without a tag: latest',
      [],
      { image: 'kubevirt-ts' },
      { image: 'kubevirt-ts', version: 'latest' },
    ],
    [
      'the launcher image the operator is given, as given',
      [spec('imageTag', 'v0.2.0')],
      { launcherImage: 'other.example/launcher:v9' },
      { image: 'registry.example/kubevirt-ts:v0.2.0', launcherImage: 'other.example/launcher:v9' },
    ],
    ['spec.imagePullPolicy', [spec('imagePullPolicy', 'Always')], {}, { imagePullPolicy: 'Always' }],
    [
      'spec.imagePullSecrets by name',
      [spec('imagePullSecrets', [{ name: 'pull-a' }, {}, { name: 'pull-b' }])],
      {},
      { imagePullSecrets: ['pull-a', 'pull-b'] },
    ],
    [
      'logVerbosity per component, 2 for those not given',
      [developer({ logVerbosity: { virtAPI: 5, virtHandler: 0, virtLauncher: 9 } })],
      {},
      { verbosity: { 'virt-api': 5, 'virt-controller': 2, 'virt-handler': 0 } },
    ],
    [
      'no developerConfiguration: no gates, no emulation',
      [
        (kv): void => {
          delete config(kv)['developerConfiguration'];
        },
      ],
      {},
      { featureGates: [], useEmulation: false },
    ],
    [
      'spec.infra: replicas and node placement',
      [
        withSpec('infra', {
          replicas: 3,
          nodePlacement: {
            nodeSelector: { 'node-role/infra': '' },
            tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'infra', effect: 'NoSchedule' }],
            affinity: { nodeAffinity: {} },
          },
        }),
      ],
      {},
      {
        infraReplicas: 3,
        infraPlacement: {
          nodeSelector: { 'node-role/infra': '' },
          tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'infra', effect: 'NoSchedule' }],
          affinity: { nodeAffinity: {} },
        },
        workloadsPlacement: { nodeSelector: {}, tolerations: [] },
      },
    ],
    [
      'spec.workloads node placement; an empty operator or effect is left out',
      [withSpec('workloads', { nodePlacement: { tolerations: [{ operator: '', effect: '', key: 'k' }] } })],
      {},
      { workloadsPlacement: { nodeSelector: {}, tolerations: [{ key: 'k' }] } },
    ],
    [
      'the deprecated rotation intervals win over the defaults',
      [
        withSpec('certificateRotateStrategy', {
          selfSigned: { caRotateInterval: '72h', certRotateInterval: '12h', caOverlapInterval: '24h' },
        }),
      ],
      {},
      {
        certificateRotation: {
          caValiditySeconds: 3 * DAY,
          caRenewBeforeSeconds: DAY,
          certValiditySeconds: 43_200,
          certRenewBeforeSeconds: 8_640,
        },
      },
    ],
    [
      'no rotation settings: seven days and one day, renewed at 20%',
      [withSpec('certificateRotateStrategy', {})],
      {},
      {
        certificateRotation: {
          caValiditySeconds: 7 * DAY,
          caRenewBeforeSeconds: 120_960,
          certValiditySeconds: DAY,
          certRenewBeforeSeconds: 17_280,
        },
      },
    ],
    [
      'customizeComponents.flags per component',
      [spec('customizeComponents', { flags: { api: { 'rate-limit': '5' }, handler: { v: '4' } } })],
      {},
      {
        flags: { 'virt-api': { 'rate-limit': '5' }, 'virt-controller': {}, 'virt-handler': { v: '4' } },
        patches: [],
      },
    ],
    [
      'patches of every type',
      [patches({ type: 'json', patch: '[]' }, { type: 'merge', patch: '{"a":1}' })],
      {},
      {
        patches: [
          { resourceName: 'virt-api', resourceType: 'Deployment', type: 'json', patch: '[]' },
          { resourceName: 'virt-api', resourceType: 'Deployment', type: 'merge', patch: '{"a":1}' },
        ],
      },
    ],
    [
      'spec.uninstallStrategy',
      [withSpec('uninstallStrategy', 'BlockUninstallIfWorkloadsExist')],
      {},
      { uninstallStrategy: 'BlockUninstallIfWorkloadsExist' },
    ],
  ])('%s', (_name, changes, env, expected) => {
    expect(installConfigFrom(kubevirtCr(...changes), { ...ENV, ...env })).toMatchObject(expected);
  });

  it.each<[string, KubeVirtChange, StatusCause]>([
    [
      'a patch that is not JSON',
      patches({ type: 'json', patch: '[]' }, { type: 'strategic', patch: '{"a":' }),
      { reason: 'FieldValueInvalid', field: 'spec.customizeComponents.patches[1].patch' },
    ],
    [
      'a patch of an unknown type',
      patches({ type: 'xml', patch: '<a/>' }),
      {
        reason: 'FieldValueNotSupported',
        field: 'spec.customizeComponents.patches[0].type',
        message: 'Unsupported value: "xml": supported values: "json", "merge", "strategic"',
      },
    ],
    [
      'a json patch that is not a list',
      patches({ type: 'json', patch: '{}' }),
      {
        field: 'spec.customizeComponents.patches[0].patch',
        message: 'a json patch must be a list of operations',
      },
    ],
    [
      'a merge patch that is not an object',
      patches({ type: 'merge', patch: '[]' }),
      { field: 'spec.customizeComponents.patches[0].patch', message: 'a merge patch must be an object' },
    ],
    [
      'zero infra replicas',
      withSpec('infra', { replicas: 0 }),
      { field: 'spec.infra.replicas', message: "infra replica count can't be 0" },
    ],
    [
      'an unknown pull policy',
      spec('imagePullPolicy', 'Sometimes'),
      { reason: 'FieldValueNotSupported', field: 'spec.imagePullPolicy' },
    ],
    [
      'an unknown uninstall strategy',
      withSpec('uninstallStrategy', 'Keep'),
      { reason: 'FieldValueNotSupported', field: 'spec.uninstallStrategy' },
    ],
    [
      'an unknown toleration operator',
      withSpec('workloads', { nodePlacement: { tolerations: [{ key: 'a' }, { operator: 'Maybe' }] } }),
      { field: 'spec.workloads.nodePlacement.tolerations[1].operator' },
    ],
    [
      'a CA renewed before longer than it lives, in KubeVirt words',
      withSpec('certificateRotateStrategy', { selfSigned: { ca: { duration: '24h', renewBefore: '25h' } } }),
      {
        field: 'spec.certificateRotateStrategy.selfSigned.ca.renewBefore',
        message:
          'CA RenewBefore cannot exceed Duration (spec.certificateRotationStrategy.selfSigned.ca.duration < spec.certificateRotationStrategy.selfSigned.ca.renewBefore)',
      },
    ],
    [
      'a certificate that does not live',
      withSpec('certificateRotateStrategy', { selfSigned: { server: { duration: '0s' } } }),
      { field: 'spec.certificateRotateStrategy.selfSigned' },
    ],
    [
      'a negative renewBefore',
      withSpec('certificateRotateStrategy', { selfSigned: { ca: { renewBefore: '-1h' } } }),
      {
        field: 'spec.certificateRotateStrategy.selfSigned',
        message: 'durations must be greater than zero and renewBefore must not be negative',
      },
    ],
    [
      'an image tag that cannot be a label value',
      spec('imageTag', `v${'1'.repeat(70)}`),
      { field: 'spec.imageTag' },
    ],
    [
      'a registry that makes no image reference',
      spec('imageRegistry', 'mirror .local'),
      { field: 'spec.imageRegistry' },
    ],
    [
      'a resource in another namespace than the operator',
      (kv) => {
        kv.metadata.namespace = 'kubevirt';
      },
      {
        field: 'metadata.namespace',
        message: 'KubeVirt CR is created in another namespace than the operator, that is not supported.',
      },
    ],
    [
      'a value Go cannot decode, with its text',
      withSpec('infra', { replicas: '2' }),
      {
        field: 'spec.infra.replicas',
        message:
          'json: cannot unmarshal string into Go struct field ComponentConfig.spec.infra.replicas of type uint8',
      },
    ],
    [
      'a log verbosity Go cannot decode',
      withConfig('developerConfiguration', { logVerbosity: { virtAPI: -1 } }),
      { field: 'spec.configuration.developerConfiguration.logVerbosity.virtAPI' },
    ],
    [
      'a duration Go cannot parse',
      withSpec('certificateRotateStrategy', { selfSigned: { server: { duration: '1d' } } }),
      {
        field: 'spec.certificateRotateStrategy.selfSigned.server.duration',
        message: 'time: unknown unit "d" in duration "1d"',
      },
    ],
  ])('refuses %s', (_name, change, cause) => {
    const { causes } = refusal(kubevirtCr(change));
    expect(causes).toEqual([expect.objectContaining(cause)]);
  });

  it('names every cause in one Invalid message', () => {
    const { message, causes } = refusal(
      kubevirtCr(withSpec('infra', { replicas: 0 }), spec('imagePullPolicy', 'Sometimes')),
    );
    expect(causes.map((c) => c.field)).toEqual(['spec.imagePullPolicy', 'spec.infra.replicas']);
    expect(message).toBe(
      'KubeVirt "kubevirt" is invalid: [spec.imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never", spec.infra.replicas: infra replica count can\'t be 0]',
    );
  });

  it.each([
    ['an image that is no reference', { image: 'Registry.example/UPPER:v1' }],
    ['a declared version that cannot be a label value', { image: `r/kubevirt-ts@${DIGEST}`, version: '-x' }],
  ])('fails with KV_ERR_CONFIG on %s', (_name, env) => {
    expect(() => installConfigFrom(kubevirtCr(), { ...ENV, ...env })).toThrow(
      expect.objectContaining({ code: 'KV_ERR_CONFIG' }),
    );
  });

  it("installs Deckhouse's own KubeVirt resource", () => {
    const kv = parse(golden.read('deckhouse-kubevirt.yaml')) as KubeVirt;
    const cfg = installConfigFrom(kv, {
      ...ENV,
      image: `registry.example/virtualization@${DIGEST}`,
      version: '1a2b3c4',
    });
    expect(cfg.verbosity).toEqual({ 'virt-api': 4, 'virt-controller': 4, 'virt-handler': 4 });
    expect(cfg.patches).toHaveLength(19);
    expect(cfg.uninstallStrategy).toBe('RemoveWorkloads');
    golden.expectJson('deckhouse-kubevirt.out.json', cfg);
  });
});
