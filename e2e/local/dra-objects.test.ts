import { describe, expect, it } from '@jest/globals';
import {
  cdiSpecFile,
  claimEnv,
  claimTemplate,
  deviceClass,
  draDriverArgs,
  driverPaths,
  isDriverCdiSpec,
  registrationSucceeded,
  slicesPath,
  TEST_DRIVER,
} from './dra-objects.ts';

const ROOT = '/s/kubelet/root';

describe('the test driver command line and paths', () => {
  it('runs kubelet-plugin for the node with the kubelet root, the CDI dir and JSON logs', () => {
    const args = draDriverArgs({
      kubeconfig: '/s/admin.kubeconfig',
      driverName: TEST_DRIVER,
      nodeName: 'local',
      kubeletRoot: ROOT,
      cdiDir: '/s/containerd/var/cdi',
      numDevices: 3,
    });
    expect(args).toEqual([
      '--kubeconfig=/s/admin.kubeconfig',
      '--drivername=test-driver.cdi.k8s.io',
      '--logging-format=json',
      '--v=6',
      'kubelet-plugin',
      '--node-name=local',
      '--datadir=/s/kubelet/root/plugins',
      '--plugin-registration-path=/s/kubelet/root/plugins_registry',
      '--cdi-dir=/s/containerd/var/cdi',
      '--num-devices=3',
    ]);
  });

  it('puts its registration socket in plugins_registry and dra.sock under plugins/<driver>', () => {
    expect(driverPaths(ROOT, 'd.example.com')).toEqual({
      registrationDir: `${ROOT}/plugins_registry`,
      registrationSocket: `${ROOT}/plugins_registry/d.example.com-reg.sock`,
      pluginsDir: `${ROOT}/plugins`,
      pluginDir: `${ROOT}/plugins/d.example.com`,
    });
  });

  it('lists its slices of one node by field selector', () => {
    expect(slicesPath(TEST_DRIVER, 'local')).toBe(
      '/apis/resource.k8s.io/v1/resourceslices?fieldSelector=spec.driver%3Dtest-driver.cdi.k8s.io%2Cspec.nodeName%3Dlocal',
    );
  });
});

describe('registrationSucceeded', () => {
  const line = (o: object): string => JSON.stringify(o);
  const method = '/pluginregistration.Registration/NotifyRegistrationStatus';
  it.each([
    ['a successful NotifyRegistrationStatus', [line({ msg: 'handling request succeeded', method })], true],
    ['only the request', [line({ msg: 'handling request', method })], false],
    ['a failed one', [line({ msg: 'handling request failed', method })], false],
    ['GetInfo only', [line({ msg: 'handling request succeeded', method: '/x.Registration/GetInfo' })], false],
    ['text that names the method', ['I handling request succeeded NotifyRegistrationStatus'], false],
    ['an empty log', [], false],
  ])('%s', (_name, lines, want) => {
    expect(registrationSucceeded(['{"msg":"starting"}', ...lines, ''].join('\n'))).toBe(want);
  });
});

describe('objects', () => {
  it('a DeviceClass selects the driver by CEL', () => {
    expect(deviceClass('kvts-x', TEST_DRIVER)).toEqual({
      apiVersion: 'resource.k8s.io/v1',
      kind: 'DeviceClass',
      metadata: { name: 'kvts-x' },
      spec: { selectors: [{ cel: { expression: 'device.driver == "test-driver.cdi.k8s.io"' } }] },
    });
  });

  it('a template of one device, with opaque parameters for the driver when given', () => {
    const o = { deviceClassName: 'kvts-x', driverName: TEST_DRIVER, request: 'dev' };
    expect(claimTemplate('t', { ...o, parameters: { a: 'b' } })).toEqual({
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaimTemplate',
      metadata: { name: 't' },
      spec: {
        spec: {
          devices: {
            requests: [{ name: 'dev', exactly: { deviceClassName: 'kvts-x' } }],
            config: [{ opaque: { driver: TEST_DRIVER, parameters: { a: 'b' } } }],
          },
        },
      },
    });
    expect(claimTemplate('t', o)).toEqual({
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaimTemplate',
      metadata: { name: 't' },
      spec: { spec: { devices: { requests: [{ name: 'dev', exactly: { deviceClassName: 'kvts-x' } }] } } },
    });
    const usb = claimTemplate('t', { ...o, selector: 'device.attributes["d"].bus == "001"' });
    expect((usb['spec'] as { spec: unknown }).spec).toEqual({
      devices: {
        requests: [
          {
            name: 'dev',
            exactly: {
              deviceClassName: 'kvts-x',
              selectors: [{ cel: { expression: 'device.attributes["d"].bus == "001"' } }],
            },
          },
        ],
      },
    });
  });
});

describe('what the driver writes for a prepared claim', () => {
  it.each([
    ['probe-device-x7k2p', 'dev', {}, { claim_probe_device_x7k2p_dev: 'true' }],
    ['c.1', 'gpu-0', { a: 'b' }, { user_a: 'b', claim_c_1_gpu_0: 'true' }],
  ])('claim %s request %s', (claim, request, params, want) => {
    expect(claimEnv(claim, request, params)).toEqual(want);
  });

  it('names its CDI spec by driver, claim UID and request', () => {
    expect(cdiSpecFile('/cdi', TEST_DRIVER, 'u-1', 'dev')).toBe('/cdi/test-driver.cdi.k8s.io-u-1-dev.json');
    expect(isDriverCdiSpec('test-driver.cdi.k8s.io-u-1-dev.json', TEST_DRIVER)).toBe(true);
    expect(isDriverCdiSpec('other.example.com-u-1-dev.json', TEST_DRIVER)).toBe(false);
    expect(isDriverCdiSpec('test-driver.cdi.k8s.io-u-1-dev.json.tmp', TEST_DRIVER)).toBe(false);
  });
});
