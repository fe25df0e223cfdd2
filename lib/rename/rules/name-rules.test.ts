import { describe, expect, it } from '@jest/globals';
import { KUBEVIRT, SYNTHETIC } from '../testing/synthetic-rules.ts';

const INT = 'kubevirt.internal.virtualization.deckhouse.io';
const MANAGED_BY = 'app.kubernetes.io/managed-by';
const P = 'preserved-original-';

type Row = [key: string, value: string | undefined, key2: string, value2: string | undefined];

describe('KubeVirt label rules', () => {
  const rows: Row[] = [
    ['kubevirt.io', 'virt-launcher', INT, 'virt-launcher'],
    ['kubevirt.io/created-by', 'uid', `${INT}/created-by`, 'uid'],
    ['kubevirt.io/schedulable', undefined, `${INT}/schedulable`, undefined],
    ['operator.kubevirt.io', 'x', `operator.${INT}`, 'x'],
    ['operator.kubevirt.io/patchversion', 'x', `operator.${INT}/patchversion`, 'x'],
    ['prometheus.kubevirt.io', 'true', `prometheus.${INT}`, 'true'],
    ['vm.kubevirt.io/name', 'vm1', `vm.${INT}/name`, 'vm1'],
    [
      'cpu-model.node.kubevirt.io/Haswell',
      'true',
      'cpu-model.node.virtualization.deckhouse.io/Haswell',
      'true',
    ],
    ['cpu-feature.node.kubevirt.io/vmx', 'true', 'cpu-feature.node.virtualization.deckhouse.io/vmx', 'true'],
    [
      'host-model-required-features.node.kubevirt.io/x',
      'true',
      'host-model-required-features.node.virtualization.deckhouse.io/x',
      'true',
    ],
    [
      'machine-type.node.kubevirt.io/q35',
      'true',
      'machine-type.node.virtualization.deckhouse.io/q35',
      'true',
    ],
    [
      'node-labeller.kubevirt.io/skip-node',
      'true',
      'node-labeller.virtualization.deckhouse.io/skip-node',
      'true',
    ],
    [
      'node-labeller.kubevirt.io/obsolete-host-model',
      'x',
      'node-labeller.internal.virtualization.deckhouse.io/obsolete-host-model',
      'x',
    ],
    [MANAGED_BY, 'virt-operator', MANAGED_BY, 'virt-operator-internal-virtualization'],
    [MANAGED_BY, 'kubevirt-operator', MANAGED_BY, 'kubevirt-operator-internal-virtualization'],
  ];

  it.each(rows)('rename %s=%s → %s=%s', (key, value, key2, value2) => {
    expect(KUBEVIRT.labels.rewrite('rename', key, value)).toEqual([key2, value2]);
  });

  it.each(rows)('restore %s=%s ← %s=%s', (key, value, key2, value2) => {
    expect(KUBEVIRT.labels.rewrite('restore', key2, value2)).toEqual([key, value]);
  });

  it.each<Row>([
    [MANAGED_BY, 'Helm', MANAGED_BY, 'Helm'],
    ['app.kubernetes.io/name', 'x', 'app.kubernetes.io/name', 'x'],
    ['sub.kubevirt.io/x', 'y', 'sub.kubevirt.io/x', 'y'],
    [`${INT}/created-by`, 'uid', `${INT}/created-by`, 'uid'],
    ['preserved-original-foo.io/x', '1', 'preserved-original-foo.io/x', '1'],
    [`${P}kubevirt.io/created-by`, 'uid', 'kubevirt.io/created-by', 'uid'],
    [`${P}kubevirt.io`, 'virt-launcher', 'kubevirt.io', 'virt-launcher'],
    [`${P}${MANAGED_BY}`, 'virt-operator', MANAGED_BY, 'virt-operator'],
    [`${P}${MANAGED_BY}`, 'Helm', `${P}${MANAGED_BY}`, 'Helm'],
    [`${P}${MANAGED_BY}`, undefined, MANAGED_BY, undefined],
    [`${P}cpu-model.node.kubevirt.io/Haswell`, 'true', 'cpu-model.node.kubevirt.io/Haswell', 'true'],
  ])('rename keeps or unhides %s=%s → %s=%s', (key, value, key2, value2) => {
    expect(KUBEVIRT.labels.rewrite('rename', key, value)).toEqual([key2, value2]);
  });

  it.each<Row>([
    ['kubevirt.io/created-by', 'uid', `${P}kubevirt.io/created-by`, 'uid'],
    ['kubevirt.io', 'virt-launcher', `${P}kubevirt.io`, 'virt-launcher'],
    [MANAGED_BY, 'virt-operator', `${P}${MANAGED_BY}`, 'virt-operator'],
    [MANAGED_BY, 'Helm', MANAGED_BY, 'Helm'],
    ['cpu-model.node.kubevirt.io/Haswell', 'true', `${P}cpu-model.node.kubevirt.io/Haswell`, 'true'],
    ['app.kubernetes.io/name', 'x', 'app.kubernetes.io/name', 'x'],
  ])('restore hides an original key already on the server: %s=%s → %s=%s', (key, value, key2, value2) => {
    expect(KUBEVIRT.labels.rewrite('restore', key, value)).toEqual([key2, value2]);
  });
});

describe('KubeVirt annotation and finalizer rules', () => {
  it.each([
    ['kubevirt.io/latest-observed-api-version', `${INT}/latest-observed-api-version`],
    ['certificates.kubevirt.io/secret', `certificates.${INT}/secret`],
    ['kubevirt.io', 'kubevirt.io'],
    ['kubectl.kubernetes.io/last-applied-configuration', 'kubectl.kubernetes.io/last-applied-configuration'],
  ])('annotation %s ↔ %s', (original, renamed) => {
    expect(KUBEVIRT.annotations.rewriteKey('rename', original)).toBe(renamed);
    expect(KUBEVIRT.annotations.rewriteKey('restore', renamed)).toBe(original);
  });

  it.each([
    ['kubevirt.io/virtualMachineControllerFinalize', `${INT}/virtualMachineControllerFinalize`],
    ['kubevirt.io/foregroundDeleteVirtualMachine', `${INT}/foregroundDeleteVirtualMachine`],
    ['foregroundDeleteVirtualMachine', 'foregroundDeleteVirtualMachine'],
    ['kubernetes.io/pvc-protection', 'kubernetes.io/pvc-protection'],
  ])('finalizer %s ↔ %s', (original, renamed) => {
    expect(KUBEVIRT.finalizers.rewriteKey('rename', original)).toBe(renamed);
    expect(KUBEVIRT.finalizers.rewriteKey('restore', renamed)).toBe(original);
  });
});

describe('synthetic label rules (kube-api-rewriter Go test set)', () => {
  it.each<Row>([
    ['labelgroup.io', 'labelvalue', 'replacedlabelgroup.io', 'labelvalue'],
    ['labelgroup.io/some-attr', undefined, 'replacedlabelgroup.io/some-attr', undefined],
    ['component.labelgroup.io/some-attr', 'v', 'component.replacedlabelgroup.io/some-attr', 'v'],
    ['labelgroup.io', 'labelValueToRename', 'replacedlabelgroup.io', 'renamedLabelValue'],
    ['other.io/x', 'v', 'other.io/x', 'v'],
    [`${P}labelgroup.io`, 'original-label-value', 'labelgroup.io', 'original-label-value'],
  ])('rename %s=%s → %s=%s', (key, value, key2, value2) => {
    expect(SYNTHETIC.labels.rewrite('rename', key, value)).toEqual([key2, value2]);
  });

  it('knows which keys are original', () => {
    expect(SYNTHETIC.labels.isOriginal('labelgroup.io')).toBe(true);
    expect(SYNTHETIC.labels.isOriginal('component.labelgroup.io/x')).toBe(true);
    expect(SYNTHETIC.labels.isOriginal('replacedlabelgroup.io')).toBe(false);
    expect(SYNTHETIC.annotations.rewriteKey('rename', 'annogroup.io')).toBe('replacedanno.io');
    expect(SYNTHETIC.annotations.rewriteKey('rename', 'annogroup.io/x')).toBe('replacedannogroup.io/x');
  });
});
