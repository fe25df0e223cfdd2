/**
 * The one place tests check that domain XML is well formed: parsed by the launcher's XML reader, which throws
 * KV_ERR_DECODE on malformed input (fast-xml-parser, strict: lib/launcher/xml-read.ts).
 */
import { parseXml, type XmlNode } from '../../xml-read.ts';

/** The root element of a well-formed document; throws when it is not one. */
export function parseWellFormedXml(xml: string): XmlNode {
  return parseXml(xml);
}
