/**
 * What an install is identified by in the KubeVirt status (util/config.go KubeVirtDeploymentConfig,
 * generateInstallStrategyID, SetTargetDeploymentConfig): the version, the registry, and an ID hashed over the
 * settings whose change makes a new deployment (namespace, images, pull policy and secrets), with those
 * settings as JSON. A status whose observed ID differs from the target's is an update in progress. Pure.
 */
import { createHash } from 'node:crypto';
import type { InstallConfig } from './install-config.ts';
import { parseImageRef } from './image.ts';

export interface TargetDeployment {
  readonly version: string;
  readonly registry: string;
  /** SHA-1 (hex) of `config` without its id. */
  readonly id: string;
  /** The identifying settings as JSON (`targetDeploymentConfig`), the id among them. */
  readonly config: string;
}

export function targetDeployment(cfg: InstallConfig): TargetDeployment {
  const registry = parseImageRef(cfg.image)?.registry ?? '';
  const settings = {
    namespace: cfg.namespace,
    registry,
    kubeVirtVersion: cfg.version,
    image: cfg.image,
    launcherImage: cfg.launcherImage,
    imagePullPolicy: cfg.imagePullPolicy,
    imagePullSecrets: cfg.imagePullSecrets,
  };
  // SHA-1 names the settings here, as KubeVirt's install strategy ID does; it protects nothing.
  const id = createHash('sha1').update(JSON.stringify(settings)).digest('hex');
  return { version: cfg.version, registry, id, config: JSON.stringify({ id, ...settings }) };
}
