/**
 * The InstallConfig of a KubeVirt resource: KubeVirt's GetTargetConfigFromKV (images, registry, version) with
 * what its Reconciler reads of the spec (pull policy and secrets, developer configuration, infra and workloads
 * placement, certificate rotation, customizeComponents, uninstall strategy), with KubeVirt's defaults. A
 * resource the operator cannot install from is refused with a StatusError (422) carrying every cause found,
 * each with its field path, for the operator to show in a condition. Pure.
 */
import { KvError, newStatus, StatusError } from '../../kernel/errors/errors.ts';
import type { KubeVirt } from '../../kubevirt/v1/objects.ts';
import { invalid, type Causes } from '../../kubevirt/validation/causes.ts';
import { KubeVirtDecodeError, readKubeVirt, type KubeVirtView } from '../../kubevirt/validation/index.ts';
import { DEFAULT_VERBOSITY, PORTS } from '../generate/layout.ts';
import { isLabelValue, parseImageRef, targetImage, versionOf, type ImageRef } from './image.ts';
import type { Component, InstallConfig, InstallMode } from './install-config.ts';
import {
  certificateRotation,
  componentPatches,
  infraReplicas,
  oneOf,
  placement,
  type Checked,
} from './spec-checks.ts';

/** What the operator knows of itself. */
export interface OperatorEnv {
  /** The namespace the operator runs in; it installs only from a KubeVirt resource there. */
  readonly namespace: string;
  /** Its own image reference (`registry/name:tag` or `registry/name@sha256:…`), which every role runs from. */
  readonly image: string;
  /** The launcher's image, when it is not the same one (used as given). */
  readonly launcherImage?: string;
  readonly mode: InstallMode;
  /** The version of a digest-only image (KubeVirt's KUBEVIRT_VERSION); a tag in `image` wins. */
  readonly version?: string;
}

/** The operator's own image in parts; a KV_ERR_CONFIG error when it cannot name what it installs. */
function ownImage(env: OperatorEnv): ImageRef {
  const own = parseImageRef(env.image);
  if (own === undefined)
    throw new KvError('KV_ERR_CONFIG', `operator image ${JSON.stringify(env.image)}: not an image reference`);
  const version = versionOf(own, env.version);
  if (!isLabelValue(version))
    throw new KvError(
      'KV_ERR_CONFIG',
      `operator version ${JSON.stringify(version)}: not a valid label value`,
    );
  return own;
}

/** The image and version to install; an image tag must also be a label value (it becomes the version). */
function image(kv: KubeVirt, own: ImageRef, env: OperatorEnv): Checked<{ image: string; version: string }> {
  const tag = kv.spec.imageTag ?? '';
  const registry = kv.spec.imageRegistry ?? '';
  const target = targetImage(own, {
    registry,
    tag: isLabelValue(tag) ? tag : '',
    ...(env.version !== undefined && { declaredVersion: env.version }),
  });
  const causes: Causes = [];
  if (!isLabelValue(tag)) {
    const message = `${JSON.stringify(tag)}: an image tag here must be a valid label value (at most 63 characters: letters, digits, '-', '_' or '.', starting and ending with a letter or digit)`;
    causes.push(invalid('spec.imageTag', message));
  }
  if (parseImageRef(target.image) === undefined) {
    const message = `${JSON.stringify(registry)}: the image ${JSON.stringify(target.image)} is not an image reference`;
    causes.push(invalid('spec.imageRegistry', message));
  }
  return { value: target, causes };
}

/** The KubeVirt CR decoded, or its decode error as a refusal. */
function decoded(kv: KubeVirt): KubeVirtView {
  try {
    return readKubeVirt(kv);
  } catch (err) {
    if (err instanceof KubeVirtDecodeError) throw refusal(kv, [invalid(err.field, err.message)]);
    throw err;
  }
}

/** Kubernetes' Invalid status: `KubeVirt "name" is invalid: field: message` (a list in brackets for several). */
function refusal(kv: KubeVirt, causes: Causes): StatusError {
  const name = kv.metadata.name ?? '';
  const each = causes.map((c) => (c.field === '' ? c.message : `${c.field}: ${c.message}`));
  const all = each.length === 1 ? (each[0] ?? '') : `[${each.join(', ')}]`;
  return new StatusError(
    newStatus(422, `KubeVirt ${JSON.stringify(name)} is invalid: ${all}`, {
      details: {
        name,
        group: 'kubevirt.io',
        kind: 'KubeVirt',
        causes: causes.map((c) => ({ reason: c.type, message: c.message, field: c.field })),
      },
    }),
  );
}

const verbosity = (view: KubeVirtView): Record<Component, number> => ({
  'virt-api': view.logVerbosity?.virtAPI ?? DEFAULT_VERBOSITY['virt-api'],
  'virt-controller': view.logVerbosity?.virtController ?? DEFAULT_VERBOSITY['virt-controller'],
  'virt-handler': view.logVerbosity?.virtHandler ?? DEFAULT_VERBOSITY['virt-handler'],
});

function flags(kv: KubeVirt): InstallConfig['flags'] {
  const f = kv.spec.customizeComponents?.flags;
  return {
    'virt-api': { ...f?.api },
    'virt-controller': { ...f?.controller },
    'virt-handler': { ...f?.handler },
  };
}

const pullSecrets = (kv: KubeVirt): string[] =>
  (kv.spec.imagePullSecrets ?? []).flatMap((s) => (s.name === undefined || s.name === '' ? [] : [s.name]));

const NOT_OURS = 'KubeVirt CR is created in another namespace than the operator, that is not supported.';

/** The install configuration of `kv`, or a StatusError (422) naming every field the operator refuses. */
export function installConfigFrom(kv: KubeVirt, env: OperatorEnv): InstallConfig {
  const own = ownImage(env);
  const view = decoded(kv);
  const causes: Causes = [];
  const take = <T>(c: Checked<T>): T => {
    causes.push(...c.causes);
    return c.value;
  };
  if (view.namespace !== env.namespace) causes.push(invalid('metadata.namespace', NOT_OURS));
  const { image: img, version } = take(image(kv, own, env));
  const cfg: InstallConfig = {
    namespace: env.namespace,
    mode: env.mode,
    image: img,
    launcherImage: env.launcherImage ?? img,
    imagePullPolicy: take(
      oneOf(
        'spec.imagePullPolicy',
        kv.spec.imagePullPolicy,
        ['Always', 'IfNotPresent', 'Never'],
        'IfNotPresent',
      ),
    ),
    imagePullSecrets: pullSecrets(kv),
    version,
    featureGates: view.featureGates ?? [],
    useEmulation: kv.spec.configuration?.developerConfiguration?.useEmulation === true,
    verbosity: verbosity(view),
    infraReplicas: take(infraReplicas(view)),
    infraPlacement: take(placement(view.infra?.placement, 'spec.infra.nodePlacement')),
    workloadsPlacement: take(placement(view.workloads?.placement, 'spec.workloads.nodePlacement')),
    handler: { hostNetwork: true, healthPort: PORTS.handlerHealth, consoleServerPort: PORTS.handlerConsole },
    certificateRotation: take(certificateRotation(view)),
    flags: flags(kv),
    patches: take(componentPatches(view)),
    uninstallStrategy: take(
      oneOf(
        'spec.uninstallStrategy',
        view.uninstallStrategy,
        ['RemoveWorkloads', 'BlockUninstallIfWorkloadsExist'],
        'RemoveWorkloads',
      ),
    ),
  };
  if (causes.length > 0) throw refusal(kv, causes);
  return cfg;
}
