/**
 * The image every role runs from, derived as KubeVirt's operator derives its targets from its own image
 * (util/config.go getConfig): the registry is everything before the last `/`, `spec.imageRegistry` replaces it
 * and `spec.imageTag` replaces the tag (a digest then no longer applies); the version is the tag, else the
 * operator's declared version (KubeVirt's KUBEVIRT_VERSION) or the digest's first 12 hex digits, else
 * `latest`. The version is the value of every object's version label, so it must be a valid label value. Pure.
 */

/** An image reference in parts: `<registry>/<name>[:<tag>][@<digest>]` (registry may be empty). */
export interface ImageRef {
  readonly registry: string;
  readonly name: string;
  readonly tag?: string;
  readonly digest?: string;
}

const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[0-9a-fA-F]{32,}$/;
const NAME = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const REGISTRY_PART = /^[^\s/@]+$/;
/** apimachinery's label value: at most 63 characters, alphanumeric at both ends. */
const LABEL_VALUE = /^(?:[A-Za-z0-9](?:[\w.-]{0,61}[A-Za-z0-9])?)?$/;
const SHORT_DIGEST = 12;

export function isLabelValue(v: string): boolean {
  return LABEL_VALUE.test(v);
}

const validParts = (r: ImageRef): boolean =>
  NAME.test(r.name) &&
  (r.registry === '' || r.registry.split('/').every((p) => REGISTRY_PART.test(p))) &&
  (r.tag === undefined || TAG.test(r.tag)) &&
  (r.digest === undefined || DIGEST.test(r.digest));

/** The parts of a reference, or undefined when it is not one. */
export function parseImageRef(ref: string): ImageRef | undefined {
  const [named = '', digest, ...more] = ref.split('@');
  const slash = named.lastIndexOf('/');
  const [name = '', tag, ...colons] = named.slice(slash + 1).split(':');
  const r: ImageRef = {
    registry: slash < 0 ? '' : named.slice(0, slash),
    name,
    ...(tag !== undefined && { tag }),
    ...(digest !== undefined && { digest }),
  };
  return more.length === 0 && colons.length === 0 && validParts(r) ? r : undefined;
}

export function formatImageRef(r: ImageRef): string {
  const tag = r.tag === undefined ? '' : `:${r.tag}`;
  const digest = r.digest === undefined ? '' : `@${r.digest}`;
  return `${r.registry === '' ? '' : `${r.registry}/`}${r.name}${tag}${digest}`;
}

interface TargetImage {
  readonly image: string;
  readonly registry: string;
  readonly version: string;
}

interface ImageOverrides {
  /** spec.imageRegistry ('' or absent: the operator's). */
  readonly registry?: string;
  /** spec.imageTag ('' or absent: the operator's). */
  readonly tag?: string;
  /** The version the operator declares for a digest-only image. */
  readonly declaredVersion?: string;
}

/** The version a reference stands for (see the file header). */
export function versionOf(r: ImageRef, declaredVersion?: string): string {
  if (r.tag !== undefined) return r.tag;
  if (declaredVersion !== undefined && declaredVersion !== '') return declaredVersion;
  if (r.digest !== undefined) return r.digest.slice(r.digest.indexOf(':') + 1).slice(0, SHORT_DIGEST);
  return 'latest';
}

/** The image, registry and version to install, from the operator's own parsed image and the overrides. */
export function targetImage(own: ImageRef, o: ImageOverrides): TargetImage {
  const registry = o.registry !== undefined && o.registry !== '' ? o.registry : own.registry;
  const retagged = o.tag !== undefined && o.tag !== '';
  const ref: ImageRef = retagged ? { registry, name: own.name, tag: o.tag } : { ...own, registry };
  return { image: formatImageRef(ref), registry, version: versionOf(ref, o.declaredVersion) };
}
