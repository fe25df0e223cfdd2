/**
 * The two ways the DHCPv6 server refuses something: bytes off the wire that are not a DHCPv6 message it can read
 * (Dhcpv6DecodeError, KV_ERR_DECODE, with what was wrong as `problem`), and a configured value that does not fit
 * the option that carries it (Dhcpv6ValueError, KV_ERR_INVALID, naming the field).
 */
import { KvError } from '../../kernel/errors/errors.ts';

/**
 * short: fewer than the 4 bytes of type and transaction id; relay: a Relay-forward or Relay-reply, which only
 * relay agents exchange with servers and this server, on the guest's own link, does not read; option-overrun:
 * an option's header or data runs past the end of the message or of the option holding it; option-length: a
 * known option whose data cannot have the length it has (RFC 8415 §21).
 */
export type DecodeProblem = 'short' | 'relay' | 'option-overrun' | 'option-length';

export class Dhcpv6DecodeError extends KvError {
  readonly problem: DecodeProblem;
  constructor(problem: DecodeProblem, detail: string) {
    super('KV_ERR_DECODE', `malformed DHCPv6 message (${problem}): ${detail}`);
    this.problem = problem;
  }
}

/** `field: detail`; field names a configuration setting or an option (`option 23`). */
export class Dhcpv6ValueError extends KvError {
  readonly field: string;
  constructor(field: string, detail: string) {
    super('KV_ERR_INVALID', `${field}: ${detail}`);
    this.field = field;
  }
}
