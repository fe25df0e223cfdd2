/**
 * The two ways the DHCPv4 server refuses something: bytes off the wire that are not a DHCP message it can
 * read (DhcpDecodeError, KV_ERR_DECODE, with what was wrong as `problem`), and a value it was asked to put on
 * the wire that does not fit its field or option (DhcpValueError, KV_ERR_INVALID, naming the field).
 */
import { KvError } from '../../kernel/errors/errors.ts';

/**
 * short: fewer bytes than the fixed header and magic cookie; cookie: not RFC 2131's magic cookie; op: neither
 * BOOTREQUEST nor BOOTREPLY; hardware: not Ethernet (htype 1, hlen 6); option-overrun: an option's length
 * runs past the end of the packet.
 */
export type DecodeProblem = 'short' | 'cookie' | 'op' | 'hardware' | 'option-overrun';

export class DhcpDecodeError extends KvError {
  readonly problem: DecodeProblem;
  constructor(problem: DecodeProblem, detail: string) {
    super('KV_ERR_DECODE', `malformed DHCP message (${problem}): ${detail}`);
    this.problem = problem;
  }
}

/** `field: detail`; field names a configuration setting, a message field or an option (`option 119`). */
export class DhcpValueError extends KvError {
  readonly field: string;
  constructor(field: string, detail: string) {
    super('KV_ERR_INVALID', `${field}: ${detail}`);
    this.field = field;
  }
}
