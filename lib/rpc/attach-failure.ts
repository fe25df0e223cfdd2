/**
 * The message of a launcher sync that failed to attach one device to the running domain, shared by the
 * launcher (which writes it) and the handler (which puts it on that device's status): the Cmd answer carries
 * only a message, so the device is named in it in one fixed form, `attaching <kind> <name> failed: <cause>`.
 * The name is a volume's name, or a host device's alias without `ua-`; the cause is cut at 1 KiB. Pure.
 */
type AttachedKind = 'volume' | 'host device';

export interface AttachFailure {
  kind: AttachedKind;
  name: string;
  /** What libvirt said. */
  cause: string;
}

export const attachFailureMessage = (f: AttachFailure): string =>
  `attaching ${f.kind} ${f.name} failed: ${f.cause}`;

/** The longest cause kept: the launcher runs in the tenant's Pod, and its words go into the VMI's status. */
const MAX_CAUSE = 1024;

const FORM = /attaching (volume|host device) (\S+) failed: ([\s\S]*)$/;

/** The device a sync failure's message names, anywhere in it (the handler prefixes the command's name). */
export function parseAttachFailure(message: string | undefined): AttachFailure | undefined {
  const m = FORM.exec(message ?? '');
  if (m === null) return undefined;
  const [, kind = '', name = '', cause = ''] = m;
  const kept = cause.length > MAX_CAUSE ? `${cause.slice(0, MAX_CAUSE)}…` : cause;
  return { kind: kind as AttachedKind, name, cause: kept };
}
