import { describe, expect, it } from '@jest/globals';
import { rewriteFieldSelectorString } from './field-selector.ts';
import { parseLabelSelector, rewriteLabelSelectorString } from './selector-string.ts';
import { kvRename, kvRestore, synRename } from './testing/synthetic-rules.ts';

const INT = 'kubevirt.internal.virtualization.deckhouse.io';

describe('label selector strings', () => {
  it.each([
    ['labelgroup.io', 'replacedlabelgroup.io'],
    ['labelgroup.io/some-attr', 'replacedlabelgroup.io/some-attr'],
    ['labelgroup.io=labelvalue', 'replacedlabelgroup.io=labelvalue'],
    ['component.labelgroup.io/some-attr=labelvalue', 'component.replacedlabelgroup.io/some-attr=labelvalue'],
    ['labelgroup.io notin (value-one,value-two)', 'replacedlabelgroup.io notin (value-one,value-two)'],
    ['labelgroup.io notin (value-one,labelValue)', 'replacedlabelgroup.io notin (labelValue,value-one)'],
    ['labelgroup.io=labelValueToRename', 'replacedlabelgroup.io=renamedLabelValue'],
    [
      'labelgroup.io notin (value-one,labelValueToRename)',
      'replacedlabelgroup.io notin (renamedLabelValue,value-one)',
    ],
    ['!labelgroup.io/x', '!replacedlabelgroup.io/x'],
    ['labelgroup.io/x!=y,app=web', 'replacedlabelgroup.io/x!=y,app=web'],
    ['labelgroup.io/x==y', 'replacedlabelgroup.io/x==y'],
    ['labelgroup.io/x > 5', 'replacedlabelgroup.io/x>5'],
    ['app=web', 'app=web'],
    ['', ''],
  ])('synthetic: %s → %s', (input, expected) => {
    expect(rewriteLabelSelectorString(input, synRename)).toBe(expected);
  });

  it.each([
    ['kubevirt.io=virt-launcher', `${INT}=virt-launcher`],
    ['kubevirt.io/created-by=abc', `${INT}/created-by=abc`],
    ['kubevirt.io in (virt-launcher, hotplug-disk)', `${INT} in (hotplug-disk,virt-launcher)`],
    [
      'app.kubernetes.io/managed-by in (virt-operator,Helm)',
      'app.kubernetes.io/managed-by in (Helm,virt-operator-internal-virtualization)',
    ],
    [
      'app.kubernetes.io/managed-by=kubevirt-operator',
      'app.kubernetes.io/managed-by=kubevirt-operator-internal-virtualization',
    ],
    ['cpu-model.node.kubevirt.io/Haswell=true', 'cpu-model.node.virtualization.deckhouse.io/Haswell=true'],
    ['preserved-original-kubevirt.io/vm=x', 'kubevirt.io/vm=x'],
    ['a in (c,b)', 'a in (b,c)'],
    ['a  =  b , c', 'a  =  b , c'],
  ])('kubevirt: %s → %s', (input, expected) => {
    expect(rewriteLabelSelectorString(input, kvRename)).toBe(expected);
  });

  it.each(['a in (b', '=x', 'a b c', 'a,,b'])('leaves %j alone (does not parse)', (input) => {
    expect(parseLabelSelector(input)).toBeUndefined();
    expect(rewriteLabelSelectorString(input, kvRename)).toBe(input);
  });

  it('restores too', () => {
    expect(rewriteLabelSelectorString(`${INT}/vm=x`, kvRestore)).toBe('kubevirt.io/vm=x');
  });
});

describe('field selector strings', () => {
  const IG = 'internal.virtualization.deckhouse.io';
  it.each([
    [
      'metadata.name=virtualmachines.kubevirt.io',
      true,
      false,
      `metadata.name=internalvirtualizationvirtualmachines.${IG}`,
    ],
    ['metadata.name=foos.example.io', true, false, 'metadata.name=foos.example.io'],
    ['metadata.name=virtualmachines.kubevirt.io', false, false, 'metadata.name=virtualmachines.kubevirt.io'],
    [
      'involvedObject.kind=VirtualMachine,involvedObject.name=vm1',
      false,
      true,
      'involvedObject.kind=InternalVirtualizationVirtualMachine,involvedObject.name=vm1',
    ],
    [
      'involvedObject.apiVersion=kubevirt.io/v1,involvedObject.kind=VirtualMachineInstance',
      false,
      true,
      `involvedObject.apiVersion=${IG}/v1,involvedObject.kind=InternalVirtualizationVirtualMachineInstance`,
    ],
    ['involvedObject.kind=Pod', false, true, 'involvedObject.kind=Pod'],
    ['garbage', true, true, 'garbage'],
  ])('%s (crd %s, events %s) → %s', (input, crd, events, expected) => {
    expect(rewriteFieldSelectorString(input, { crd, events }, kvRename)).toBe(expected);
  });
});
