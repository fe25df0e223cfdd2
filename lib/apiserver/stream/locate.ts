/**
 * Where the api reaches the handler of a VMI's node (kubevirt pkg/virt-api/rest/dialers.go finds the
 * virt-handler Pod on `status.nodeName` and dials its Pod IP): the handler runs with hostNetwork (in
 * Deckhouse) or as a host process (the local cluster), so its address is the Node's own — InternalIP first,
 * then ExternalIP — at the REST server port the api is configured with. Pure.
 */
import type { HandlerAddress } from './dial.ts';

export interface NodeAddresses {
  readonly metadata: { readonly name?: string };
  readonly status?: { readonly addresses?: readonly { readonly type: string; readonly address: string }[] };
}

const PREFERRED = ['InternalIP', 'ExternalIP'] as const;

export function handlerAddress(
  node: NodeAddresses,
  port: number,
): HandlerAddress | { readonly message: string } {
  const addresses = node.status?.addresses ?? [];
  for (const type of PREFERRED) {
    const found = addresses.find((a) => a.type === type && a.address !== '');
    if (found !== undefined) return { host: found.address, port };
  }
  return {
    message: `node ${node.metadata.name ?? ''} has no InternalIP or ExternalIP address to reach its handler`,
  };
}
