/**
 * What the local cluster's DRA tests say to and about Kubernetes' own test driver (test/e2e/dra/test-driver of
 * the pinned k8s.io/kubernetes, built by testenv/build.sh dra): its kubelet-plugin command line, the paths it
 * makes under the kubelet root and the CDI dir, a DeviceClass that selects its devices, a ResourceClaimTemplate
 * of that class, and the variables its CDI spec puts in a container. Pure; dra-driver.ts runs it.
 */
import { join } from 'node:path';
import type { Obj } from './kube.ts';

/** The test driver's default name (its deploy/example/deviceclass.yaml selects on it). */
export const TEST_DRIVER = 'test-driver.cdi.k8s.io';

export const RESOURCE_API = '/apis/resource.k8s.io/v1';

export interface DriverArgsOptions {
  readonly kubeconfig: string;
  readonly driverName: string;
  readonly nodeName: string;
  readonly kubeletRoot: string;
  readonly cdiDir: string;
  readonly numDevices: number;
}

/** Where the driver's sockets live under the kubelet root (the kubelet's plugin watcher and DRA manager). */
export interface DriverPaths {
  /** The kubelet's plugin watcher dir: the driver puts `<driver>-reg.sock` here. */
  readonly registrationDir: string;
  readonly registrationSocket: string;
  /** `--datadir`: the driver adds its name and puts dra.sock there. */
  readonly pluginsDir: string;
  readonly pluginDir: string;
}

export function driverPaths(kubeletRoot: string, driverName: string): DriverPaths {
  const registrationDir = join(kubeletRoot, 'plugins_registry');
  const pluginsDir = join(kubeletRoot, 'plugins');
  return {
    registrationDir,
    registrationSocket: join(registrationDir, `${driverName}-reg.sock`),
    pluginsDir,
    pluginDir: join(pluginsDir, driverName),
  };
}

/**
 * `dra-test-driver … kubelet-plugin …`: JSON logs at -v=6, where each gRPC call the kubelet makes is logged
 * (registrationSucceeded reads them).
 */
export function draDriverArgs(o: DriverArgsOptions): string[] {
  const p = driverPaths(o.kubeletRoot, o.driverName);
  return [
    `--kubeconfig=${o.kubeconfig}`,
    `--drivername=${o.driverName}`,
    '--logging-format=json',
    '--v=6',
    'kubelet-plugin',
    `--node-name=${o.nodeName}`,
    `--datadir=${p.pluginsDir}`,
    `--plugin-registration-path=${p.registrationDir}`,
    `--cdi-dir=${o.cdiDir}`,
    `--num-devices=${String(o.numDevices)}`,
  ];
}

/**
 * Whether the driver's log shows the kubelet's NotifyRegistrationStatus answered without error: the plugin
 * answers an error when the kubelet reports a failed registration, so success means the kubelet took it.
 */
export function registrationSucceeded(log: string): boolean {
  return log.split('\n').some((line) => {
    if (!line.includes('NotifyRegistrationStatus')) return false;
    try {
      const l = JSON.parse(line) as { msg?: unknown; method?: unknown };
      return l.msg === 'handling request succeeded' && String(l.method).endsWith('/NotifyRegistrationStatus');
    } catch {
      return false;
    }
  });
}

/** A DeviceClass of every device the driver publishes (the test driver's deploy/example/deviceclass.yaml). */
export function deviceClass(name: string, driverName: string): Obj {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'DeviceClass',
    metadata: { name },
    spec: { selectors: [{ cel: { expression: `device.driver == ${JSON.stringify(driverName)}` } }] },
  };
}

export interface ClaimTemplateOptions {
  readonly deviceClassName: string;
  readonly driverName: string;
  /** The request's name: the Pod's container sees `claim_<claim>_<request>=true`. */
  readonly request: string;
  /** Opaque parameters for the driver: each becomes `user_<key>=<value>` in the container. */
  readonly parameters?: Readonly<Record<string, string>>;
  /** A CEL expression the device must also match. */
  readonly selector?: string;
}

/** A ResourceClaimTemplate of one device of the class, with the driver's opaque parameters when given. */
export function claimTemplate(name: string, o: ClaimTemplateOptions): Obj {
  const params = o.parameters ?? {};
  const config =
    Object.keys(params).length === 0 ? [] : [{ opaque: { driver: o.driverName, parameters: params } }];
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaimTemplate',
    metadata: { name },
    spec: {
      spec: {
        devices: {
          requests: [
            {
              name: o.request,
              exactly: {
                deviceClassName: o.deviceClassName,
                ...(o.selector !== undefined && { selectors: [{ cel: { expression: o.selector } }] }),
              },
            },
          ],
          ...(config.length > 0 && { config }),
        },
      },
    },
  };
}

/** The variables the driver's CDI spec gives a container of the claim (its nodePrepareResource). */
export function claimEnv(
  claimName: string,
  request: string,
  parameters: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(parameters)) out[`user_${k}`] = v;
  out[`claim_${claimName}_${request}`.replace(/[^a-zA-Z0-9]/g, '_')] = 'true';
  return out;
}

/** The CDI spec file the driver writes for a prepared claim's request and removes when it is unprepared. */
export const cdiSpecFile = (cdiDir: string, driverName: string, claimUid: string, request: string): string =>
  join(cdiDir, `${driverName}-${claimUid}-${request}.json`);

/** Whether a file of the CDI dir is one of the driver's claim specs. */
export const isDriverCdiSpec = (file: string, driverName: string): boolean =>
  file.startsWith(`${driverName}-`) && file.endsWith('.json');

/** The list path of the driver's ResourceSlices for one node (field selectors the API serves for slices). */
export const slicesPath = (driverName: string, nodeName: string): string =>
  `${RESOURCE_API}/resourceslices?fieldSelector=${encodeURIComponent(
    `spec.driver=${driverName},spec.nodeName=${nodeName}`,
  )}`;
