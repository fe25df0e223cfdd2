/**
 * The infoSource of a status.interfaces entry (kubevirt pkg/network/vmispec infosource.go, tag v1.6.2): which
 * sources reported the interface, `domain`, `guest-agent`, `multus-status`, joined with ", " in the order they
 * were added (`domain, guest-agent, multus-status`). The handler writes the first two, the controller the third.
 */

export type InfoSource = 'domain' | 'guest-agent' | 'multus-status';

const SEPARATOR = ', ';

const split = (infoSource: string | undefined): string[] =>
  infoSource === undefined || infoSource === '' ? [] : infoSource.split(SEPARATOR);

/** vmispec.ContainsInfoSource. */
export function hasInfoSource(infoSource: string | undefined, source: InfoSource): boolean {
  return split(infoSource).includes(source);
}

/** vmispec.AddInfoSource: source appended unless already there. */
export function addInfoSource(infoSource: string | undefined, source: InfoSource): string {
  const sources = split(infoSource);
  return sources.includes(source) ? sources.join(SEPARATOR) : [...sources, source].join(SEPARATOR);
}

/** vmispec.RemoveInfoSource: undefined when no source is left (the field is then omitted, as Go's ""). */
export function removeInfoSource(infoSource: string | undefined, source: InfoSource): string | undefined {
  const left = split(infoSource).filter((s) => s !== source);
  return left.length === 0 ? undefined : left.join(SEPARATOR);
}
