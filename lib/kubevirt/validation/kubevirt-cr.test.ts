import { describe, expect, it } from '@jest/globals';
import type { AdmissionCause } from './causes.ts';
import { placementChecks, placementProbe } from './kubevirt-cr-placement.ts';
import { readKubeVirt } from './kubevirt-cr-read.ts';
import {
  blocksUninstall,
  kubeVirtCreateRefusal,
  kubeVirtUpdateWarnings,
  uninstallRefusal,
  validateKubeVirtUpdate,
} from './kubevirt-cr.ts';
import { inv, ns } from './testing/fixtures.ts';
import { kubevirtCr, withConfig, withSpec, type KubeVirtChange } from './testing/kubevirts.ts';

const CERTS = 'spec.certificateRotationStrategy.selfSigned';
const selfSigned = (v: unknown): KubeVirtChange => withSpec('certificateRotateStrategy', { selfSigned: v });
const gates =
  (...g: string[]): KubeVirtChange =>
  (kv) => {
    kv.spec.configuration = { ...kv.spec.configuration, developerConfiguration: { featureGates: g } };
  };
const seccomp = (profile: unknown): KubeVirtChange =>
  withConfig('seccompConfiguration', { virtualMachineInstanceProfile: profile });
const CUSTOM = 'spec.configuration.seccompConfiguration.virtualMachineInstanceProfile.customProfile';

/** The causes of updating kubevirtCr(...oldChanges) to kubevirtCr(...change). */
function updateCauses(change: KubeVirtChange, old: KubeVirtChange = () => undefined): AdmissionCause[] {
  return validateKubeVirtUpdate(readKubeVirt(kubevirtCr(old)), readKubeVirt(kubevirtCr(change)), {
    placementRefusals: {},
  });
}

describe('validateKubeVirtUpdate (kubevirt-update-admitter.go)', () => {
  it.each<[string, KubeVirtChange, AdmissionCause[]]>([
    ['the Deckhouse CR', () => undefined, []],
    [
      'a customizeComponents patch that is not JSON, quoted as Go does',
      (kv) => {
        kv.spec.customizeComponents = {
          patches: [
            { resourceName: 'virt-api', resourceType: 'Deployment', patch: '{"a":\n', type: 'json' },
            { resourceName: 'virt-api', resourceType: 'Deployment', patch: '[]', type: 'json' },
          ],
        };
      },
      [ns('', 'patch "{\\"a\\":\\n" is not valid JSON')],
    ],
    [
      'deprecated and current certificate settings together',
      selfSigned({ caRotateInterval: '48h', ca: { duration: '48h' } }),
      [
        ns(
          '',
          'caRotateInterval, certRotateInterval and caOverlapInterval are deprecated and conflict with CertConfig defined rotation parameters',
        ),
      ],
    ],
    [
      'a CA renewed before longer than it lives',
      selfSigned({ ca: { duration: '24h', renewBefore: '25h' }, server: { duration: '1h' } }),
      [inv('', `CA RenewBefore cannot exceed Duration (${CERTS}.ca.duration < ${CERTS}.ca.renewBefore)`)],
    ],
    [
      'a certificate renewed before longer than it lives',
      selfSigned({ server: { duration: '2h', renewBefore: '3h' } }),
      [
        inv(
          '',
          `Cert RenewBefore cannot exceed Duration (${CERTS}.server.duration < ${CERTS}.server.renewBefore)`,
        ),
      ],
    ],
    [
      'a certificate outliving the default CA (7 days)',
      selfSigned({ server: { duration: '200h' } }),
      [inv('', `Certificate duration cannot exceed CA (${CERTS}.server.duration > ${CERTS}.ca.duration)`)],
    ],
    [
      'the deprecated CA interval takes priority over the default',
      selfSigned({ caRotateInterval: '10h', caOverlapInterval: '1h' }),
      [inv('', `Certificate duration cannot exceed CA (${CERTS}.server.duration > ${CERTS}.ca.duration)`)],
    ],
    ['a ratio of 1.5', withConfig('additionalGuestMemoryOverheadRatio', '1.5'), []],
    [
      'a ratio below 1',
      withConfig('additionalGuestMemoryOverheadRatio', '0.9'),
      [ns('', 'ratio provided, 0.9, cannot be smaller than 1.0')],
    ],
    [
      'a ratio that is no float',
      withConfig('additionalGuestMemoryOverheadRatio', 'x1'),
      [
        ns(
          '',
          'ratio provided, x1, cannot be parsed into float: strconv.ParseFloat: parsing "x1": invalid syntax',
        ),
      ],
    ],
    [
      'ciphers with TLS 1.3',
      withConfig('tlsConfiguration', { minTLSVersion: 'VersionTLS13', ciphers: ['TLS_AES_128_GCM_SHA256'] }),
      [
        ns(
          'spec.configuration.tlsConfiguration.ciphers',
          'You cannot specify ciphers when spec.configuration.tlsConfiguration.minTLSVersion is empty or VersionTLS13',
        ),
      ],
    ],
    [
      'ciphers without a minimum version',
      withConfig('tlsConfiguration', { ciphers: ['TLS_AES_128_GCM_SHA256'] }),
      [
        ns(
          'spec.configuration.tlsConfiguration.ciphers',
          'You cannot specify ciphers when spec.configuration.tlsConfiguration.minTLSVersion is empty or VersionTLS13',
        ),
      ],
    ],
    [
      'an unknown cipher with TLS 1.2, by its index after #',
      withConfig('tlsConfiguration', {
        minTLSVersion: 'VersionTLS12',
        ciphers: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'ECDHE-RSA-AES128-GCM-SHA256'],
      }),
      [
        ns(
          'spec.configuration.tlsConfiguration.ciphers#1',
          'ECDHE-RSA-AES128-GCM-SHA256 is not a valid cipher',
        ),
      ],
    ],
    [
      'an insecure cipher Go still names',
      withConfig('tlsConfiguration', {
        minTLSVersion: 'VersionTLS10',
        ciphers: ['TLS_RSA_WITH_3DES_EDE_CBC_SHA'],
      }),
      [],
    ],
    ['a seccomp profile with no custom profile', seccomp({}), [inv(CUSTOM, `${CUSTOM} needs to be set`)]],
    [
      'a localhost and the runtime default profile together',
      seccomp({ customProfile: { localhostProfile: 'kubevirt/kubevirt.json', runtimeDefaultProfile: true } }),
      [
        inv(
          `${CUSTOM}.localhostProfile`,
          `${CUSTOM}.localhostProfile cannot be set when ${CUSTOM}.runtimeDefaultProfile is set`,
        ),
        inv(
          `${CUSTOM}.runtimeDefaultProfile`,
          `${CUSTOM}.runtimeDefaultProfile cannot be set when ${CUSTOM}.localhostProfile is set`,
        ),
      ],
    ],
    ['the runtime default profile', seccomp({ customProfile: { runtimeDefaultProfile: true } }), []],
    [
      'infra with 0 replicas',
      withSpec('infra', { replicas: 0 }),
      [inv('', "infra replica count can't be 0")],
    ],
    ['infra with 2 replicas', withSpec('infra', { replicas: 2 }), []],
  ])('%s', (_name, change, expected) => {
    expect(updateCauses(change)).toEqual(expected);
  });

  it('checks TLS and seccomp only when they change, replicas and certificates always', () => {
    const badTls = withConfig('tlsConfiguration', { minTLSVersion: 'VersionTLS12', ciphers: ['nope'] });
    const badSeccomp = seccomp({});
    const zero = withSpec('infra', { replicas: 0 });
    expect(updateCauses(badTls, badTls)).toEqual([]);
    expect(updateCauses(badSeccomp, badSeccomp)).toEqual([]);
    expect(updateCauses(zero, zero)).toEqual([inv('', "infra replica count can't be 0")]);
  });

  it('reports every failing rule, in KubeVirt’s order, and a placement refusal as a cause without a field', () => {
    const oldKv = readKubeVirt(kubevirtCr());
    const newKv = readKubeVirt(
      kubevirtCr(
        withSpec('infra', { replicas: 0, nodePlacement: { nodeSelector: { a: 'b' } } }),
        withConfig('additionalGuestMemoryOverheadRatio', '0.5'),
      ),
    );
    expect(
      validateKubeVirtUpdate(oldKv, newKv, { placementRefusals: { infra: 'Deployment.apps is invalid' } }),
    ).toEqual([
      ns('', 'ratio provided, 0.5, cannot be smaller than 1.0'),
      inv('', 'Deployment.apps is invalid'),
      inv('', "infra replica count can't be 0"),
    ]);
  });
});

describe('kubeVirtUpdateWarnings', () => {
  const GA = (g: string): string =>
    `feature gate ${g} is deprecated (feature state is "General Availability"), therefore it can be safely removed and is redundant. For more info, please look at: https://github.com/kubevirt/kubevirt/blob/main/docs/deprecation.md`;
  const warnings = (change: KubeVirtChange, old: KubeVirtChange = () => undefined): string[] =>
    kubeVirtUpdateWarnings(readKubeVirt(kubevirtCr(old)), readKubeVirt(kubevirtCr(change)));

  it.each<[string, KubeVirtChange, KubeVirtChange, string[]]>([
    ['no gate change', () => undefined, () => undefined, []],
    [
      'an alpha gate added (KubeVirt’s empty warning is dropped)',
      gates('HotplugVolumes', 'Sidecar'),
      () => undefined,
      [],
    ],
    ['a GA gate added', gates('LiveMigration'), () => undefined, [GA('LiveMigration')]],
    ['a GA gate already listed', gates('LiveMigration'), gates('LiveMigration'), []],
    [
      'deprecated and discontinued gates, in the listed order',
      gates('Passt', 'DockerSELinuxMCSWorkaround', 'ExperimentalVirtiofsSupport'),
      () => undefined,
      [
        'Passt network binding is discontinued since v1.3. Please refer to Kubevirt user guide for alternatives.',
        'DockerSELinuxMCSWorkaround has been deprecated since v1.4.',
        'Virtiofs ExperimentalVirtiofsSupport feature gate is deprecated and will be removed in >= 1.6. Please use EnableVirtioFsConfigVolumes or EnableVirtioFsPVC feature gates instead',
      ],
    ],
    [
      'a developerConfiguration removed is no change',
      (kv) => delete kv.spec.configuration?.developerConfiguration,
      gates('Macvtap'),
      [],
    ],
    [
      'the deprecated mediatedDevicesTypes, also per node',
      withConfig('mediatedDevicesConfiguration', {
        mediatedDevicesTypes: ['nvidia-222'],
        nodeMediatedDeviceTypes: [
          { nodeSelector: {}, mediatedDeviceTypes: ['x'] },
          { nodeSelector: {}, mediatedDevicesTypes: [] },
        ],
      }),
      () => undefined,
      [
        'spec.configuration.mediatedDevicesConfiguration.mediatedDevicesTypes is deprecated, use mediatedDeviceTypes',
        'spec.configuration.mediatedDevicesConfiguration.nodeMediatedDeviceTypes[1].mediatedDevicesTypes is deprecated, use mediatedDeviceTypes',
      ],
    ],
  ])('%s', (_name, change, old, expected) => {
    expect(warnings(change, old)).toEqual(expected);
  });
});

describe('readKubeVirt: what Go’s json.Unmarshal refuses', () => {
  it.each<[string, KubeVirtChange, string]>([
    [
      'a duration that is not a string',
      selfSigned({ ca: { duration: 3600 } }),
      'json: cannot unmarshal number into Go struct field CertConfig.spec.certificateRotateStrategy.selfSigned.ca.duration of type string',
    ],
    [
      'a duration without a unit',
      selfSigned({ caOverlapInterval: '12' }),
      'time: missing unit in duration "12"',
    ],
    [
      'a duration with an unknown unit',
      selfSigned({ ca: { duration: '2d' } }),
      'time: unknown unit "d" in duration "2d"',
    ],
    [
      'a duration that is no number',
      selfSigned({ server: { duration: 'soon' } }),
      'time: invalid duration "soon"',
    ],
    [
      'replicas past uint8',
      withSpec('infra', { replicas: 300 }),
      'json: cannot unmarshal number 300 into Go struct field ComponentConfig.spec.infra.replicas of type uint8',
    ],
    [
      'a ratio that is a number',
      withConfig('additionalGuestMemoryOverheadRatio', 1.5),
      'json: cannot unmarshal number into Go struct field KubeVirtConfiguration.spec.configuration.additionalGuestMemoryOverheadRatio of type string',
    ],
    [
      'a cipher list that is a string',
      withConfig('tlsConfiguration', { ciphers: 'TLS_AES_128_GCM_SHA256' }),
      'json: cannot unmarshal string into Go struct field TLSConfiguration.spec.configuration.tlsConfiguration.ciphers of type []string',
    ],
    [
      'a node placement that is a list',
      withSpec('workloads', { nodePlacement: [] }),
      'json: cannot unmarshal array into Go struct field ComponentConfig.spec.workloads.nodePlacement of type v1.NodePlacement',
    ],
    [
      'a toleration that is a string',
      withSpec('infra', { nodePlacement: { tolerations: ['Exists'] } }),
      'json: cannot unmarshal string into Go struct field NodePlacement.spec.infra.nodePlacement.tolerations of type v1.Toleration',
    ],
    [
      'a log verbosity that is not a whole number',
      withConfig('developerConfiguration', { logVerbosity: { virtHandler: 2.5 } }),
      'json: cannot unmarshal number 2.5 into Go struct field LogVerbosity.spec.configuration.developerConfiguration.logVerbosity.virtHandler of type uint',
    ],
  ])('%s', (_name, change, message) => {
    expect(() => readKubeVirt(kubevirtCr(change))).toThrow(
      expect.objectContaining({ code: 'KV_ERR_DECODE', message }),
    );
  });

  it('takes null as absent', () => {
    const kv = readKubeVirt(kubevirtCr(withSpec('infra', { replicas: null, nodePlacement: null })));
    expect(kv.infra).toEqual({});
  });
});

describe('placement (validateInfraPlacement, validateWorkloadPlacement)', () => {
  const placement = { nodeSelector: { 'node-role/virt': '' }, tolerations: [{ operator: 'Exists' }] };

  it('dry-runs only a changed placement that is set: infra as a Deployment, workloads as a DaemonSet', () => {
    const old = readKubeVirt(kubevirtCr(withSpec('workloads', { nodePlacement: placement })));
    const next = readKubeVirt(
      kubevirtCr(
        withSpec('infra', { nodePlacement: placement }),
        withSpec('workloads', { nodePlacement: placement }),
      ),
    );
    const checks = placementChecks(old, next);
    expect(checks).toEqual([{ component: 'infra', nodePlacement: placement }]);
    expect(placementChecks(next, readKubeVirt(kubevirtCr(withSpec('infra', { replicas: 2 }))))).toEqual([]);
    const template = {
      metadata: { generateName: 'placement-verification-pod', labels: { 'kubevirt.io/choose-me': '' } },
      spec: {
        containers: [{ name: 'placement-verification-pod', image: 'test.only:latest' }],
        ...placement,
      },
    };
    const selector = { matchLabels: { 'kubevirt.io/choose-me': '' } };
    expect(checks.map(placementProbe)).toEqual([
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'placement-validation-webhook' },
        spec: { replicas: 1, selector, template },
      },
    ]);
    expect(placementProbe({ component: 'workloads', nodePlacement: placement })).toMatchObject({
      kind: 'DaemonSet',
      spec: { selector, template },
    });
  });
});

describe('create and delete (kubevirt-create-admitter.go, webhook.go)', () => {
  it('refuses a second KubeVirt CR', () => {
    expect(kubeVirtCreateRefusal(0)).toBeUndefined();
    expect(kubeVirtCreateRefusal(1)).toBe('Kubevirt is already created');
  });

  it.each<[string, KubeVirtChange, boolean]>([
    ['no uninstall strategy', () => undefined, false],
    ['RemoveWorkloads', withSpec('uninstallStrategy', 'RemoveWorkloads'), false],
    [
      'BlockUninstallIfWorkloadsExist, Deployed',
      withSpec('uninstallStrategy', 'BlockUninstallIfWorkloadsExist'),
      true,
    ],
    [
      'BlockUninstallIfWorkloadsExist, still Deploying',
      (kv) => {
        kv.spec.uninstallStrategy = 'BlockUninstallIfWorkloadsExist';
        kv.status = { phase: 'Deploying' };
      },
      false,
    ],
  ])('an uninstall is checked for workloads with %s: %s', (_name, change, blocks) => {
    expect(blocksUninstall(readKubeVirt(kubevirtCr(change)))).toBe(blocks);
  });

  it('names what is left in KubeVirt’s words', () => {
    expect(uninstallRefusal('Virtual Machines')).toBe(
      'Rejecting the uninstall request, since there are still Virtual Machines present. Either delete all KubeVirt related workloads or change the uninstall strategy before uninstalling KubeVirt.',
    );
  });
});
