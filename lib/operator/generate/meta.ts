/**
 * The metadata every generated object carries (KubeVirt's components set the `kubevirt.io` component label and
 * the app.kubernetes.io labels; the fork moves the install labels under install.internal.virtualization.deckhouse.io),
 * so the operator finds what it made by one label selector.
 */
import type { InstallConfig, Rendered } from '../config/install-config.ts';
import { LABELS, MANAGED_BY, PART_OF } from './names.ts';

export interface MetaOptions {
  readonly name: string;
  /** The component label's value (`virt-api`, `virt-handler`, …); absent on objects shared by all. */
  readonly component?: string;
  /** Cluster-scoped objects get no namespace. */
  readonly clusterScoped?: boolean;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

/**
 * The label selector of everything one install made (the operator lists and deletes by it). Only the install
 * label: the rename rules leave it as it is, while the managed-by value is stored renamed.
 */
export function installSelector(): string {
  return `${LABELS.install}=${PART_OF}`;
}

/** The labels of a generated object: the install's, the version, the component's and any extra ones. */
function labelsFor(
  cfg: InstallConfig,
  o: Pick<MetaOptions, 'component' | 'labels'>,
): Record<string, string> {
  return {
    [LABELS.install]: PART_OF,
    [LABELS.managedBy]: MANAGED_BY,
    [LABELS.partOf]: PART_OF,
    [LABELS.version]: cfg.version,
    ...(o.component !== undefined && { [LABELS.component]: o.component }),
    ...o.labels,
  };
}

export function metadataFor(cfg: InstallConfig, o: MetaOptions): Rendered['metadata'] {
  return {
    name: o.name,
    ...(o.clusterScoped !== true && { namespace: cfg.namespace }),
    labels: labelsFor(cfg, o),
    ...(o.annotations !== undefined && { annotations: { ...o.annotations } }),
  };
}
