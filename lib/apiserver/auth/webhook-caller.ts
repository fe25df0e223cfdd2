/**
 * Who may call the admission webhooks: a client whose certificate the webhook client CA verified (peer.ts, since
 * this port trusts other CAs too) and whose common name is one of that trust's allowed names (the kernel's
 * nameRefusal): the rewriter's webhook proxy, or kube-apiserver's webhook client certificate where it calls the
 * api directly. KubeVirt's virt-api asks webhook callers for no certificate; this port serves the subresource API
 * to whoever reaches it as well, so a review without such a certificate is answered 401 before its body is read.
 */
import type { TLSSocket } from 'node:tls';
import type { Clock } from '../../kernel/clock.ts';
import type { Status } from '../../kernel/errors/errors.ts';
import { nameRefusal } from '../../kernel/tls/peer-name.ts';
import type { NamedTrust } from './config.ts';
import { PROBLEM_TEXT, type PeerFacts } from './identity.ts';
import { peerVerifiedBy } from './peer.ts';
import { unauthorizedStatus } from './status.ts';

type WebhookClient = 'webhook-client';

/** Why this peer may not call the webhooks, or undefined when it may. Pure. */
export function webhookCallerRefusal(peer: PeerFacts<WebhookClient>, trust: NamedTrust): string | undefined {
  if (peer.verifiedBy === undefined) {
    if (peer.problem === undefined) return 'Unauthorized: the admission webhooks need a client certificate';
    const why =
      peer.problem === 'untrusted' ? 'it is not signed by the webhook client CA' : PROBLEM_TEXT[peer.problem];
    return `Unauthorized: the client certificate is not accepted: ${why}`;
  }
  return nameRefusal(peer.commonName, trust.allowedNames, trust.namesFrom);
}

/** The 401 Status to answer the caller on this connection, or undefined when it may call the webhooks. */
export function webhookCallerStatus(socket: TLSSocket, trust: NamedTrust, clock?: Clock): Status | undefined {
  const peer = peerVerifiedBy<WebhookClient>(socket, [['webhook-client', trust.ca]], clock);
  const refusal = webhookCallerRefusal(peer, trust);
  return refusal === undefined ? undefined : unauthorizedStatus(refusal);
}
