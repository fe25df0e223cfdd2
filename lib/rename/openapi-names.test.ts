import { describe, expect, it } from '@jest/globals';
import { SKIP } from './json.ts';
import { restoreApiPath, restoreSchemaName, restoreText } from './openapi-names.ts';
import { kvRestore } from './testing/synthetic-rules.ts';

const IG = 'internal.virtualization.deckhouse.io';
const NS = 'namespaces/{namespace}';

describe('restoreSchemaName', () => {
  it.each([
    [
      'io.deckhouse.virtualization.internal.v1.InternalVirtualizationVirtualMachine',
      'io.kubevirt.v1.VirtualMachine',
    ],
    [
      'io.deckhouse.virtualization.internal.v1.InternalVirtualizationVirtualMachineInstanceMigrationList',
      'io.kubevirt.v1.VirtualMachineInstanceMigrationList',
    ],
    [
      'io.deckhouse.virtualization.internal.v1alpha3.InternalVirtualizationKubeVirt',
      'io.kubevirt.v1alpha3.KubeVirt',
    ],
    [
      'io.deckhouse.virtualization.internal.migrations.v1alpha1.InternalVirtualizationMigrationPolicy',
      'io.kubevirt.migrations.v1alpha1.MigrationPolicy',
    ],
    ['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'],
    ['io.k8s.api.core.v1.Pod', 'io.k8s.api.core.v1.Pod'],
    [
      'io.deckhouse.virtualization.v1alpha2.VirtualMachine',
      'io.deckhouse.virtualization.v1alpha2.VirtualMachine',
    ],
    ['Short.Name', 'Short.Name'],
    // A kind of a renamed group without a rule, and a schema of an original group the server serves: hidden.
    ['io.deckhouse.virtualization.internal.v1.InternalVirtualizationWidget', SKIP],
    ['io.kubevirt.v1.VirtualMachine', SKIP],
  ])('%s → %s', (name, want) => {
    expect(restoreSchemaName(name, kvRestore)).toBe(want);
  });
});

describe('restoreApiPath', () => {
  it.each([
    [
      `/apis/${IG}/v1/${NS}/internalvirtualizationvirtualmachines`,
      `/apis/kubevirt.io/v1/${NS}/virtualmachines`,
    ],
    [
      `/apis/${IG}/v1/${NS}/internalvirtualizationvirtualmachines/{name}/status`,
      `/apis/kubevirt.io/v1/${NS}/virtualmachines/{name}/status`,
    ],
    [
      `/apis/${IG}/v1/watch/${NS}/internalvirtualizationvirtualmachineinstances/{name}`,
      `/apis/kubevirt.io/v1/watch/${NS}/virtualmachineinstances/{name}`,
    ],
    [`/apis/${IG}/v1/internalvirtualizationkubevirts`, '/apis/kubevirt.io/v1/kubevirts'],
    [
      `/apis/snapshot.${IG}/v1alpha1/${NS}/internalvirtualizationvirtualmachinesnapshots`,
      `/apis/snapshot.kubevirt.io/v1alpha1/${NS}/virtualmachinesnapshots`,
    ],
    [`/apis/${IG}/v1/`, '/apis/kubevirt.io/v1/'],
    [`/apis/${IG}/`, '/apis/kubevirt.io/'],
    ['/api/v1/namespaces/{namespace}/pods', '/api/v1/namespaces/{namespace}/pods'],
    ['/apis/apps/v1/namespaces/{namespace}/deployments', '/apis/apps/v1/namespaces/{namespace}/deployments'],
    [`/apis/${IG}/v1/${NS}/internalvirtualizationwidgets`, SKIP],
    ['/apis/kubevirt.io/v1/namespaces/{namespace}/virtualmachines', SKIP],
  ])('%s → %s', (path, want) => {
    expect(restoreApiPath(path, kvRestore)).toEqual(want);
  });
});

describe('restoreText', () => {
  it.each([
    [
      'readInternalVirtualizationDeckhouseIoV1NamespacedInternalVirtualizationVirtualMachine',
      'readKubevirtIoV1NamespacedVirtualMachine',
    ],
    ['internalVirtualizationDeckhouseIo_v1', 'kubevirtIo_v1'],
    ['cloneInternalVirtualizationDeckhouseIo_v1alpha1', 'cloneKubevirtIo_v1alpha1'],
    [
      'InternalVirtualizationVirtualMachineList is a list of InternalVirtualizationVirtualMachine',
      'VirtualMachineList is a list of VirtualMachine',
    ],
    ['List of internalvirtualizationvirtualmachines.', 'List of virtualmachines.'],
    [`watch objects of ${IG}`, 'watch objects of kubevirt.io'],
    ['list objects of kind Pod', 'list objects of kind Pod'],
  ])('%s → %s', (text, want) => {
    expect(restoreText(text, kvRestore)).toBe(want);
  });
});
