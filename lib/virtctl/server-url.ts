/**
 * The API server URL as virtctl-ts shows and dials it: without the user:password@ a kubeconfig's server may
 * carry (the kube client sends the origin alone, and a websocket URL with userinfo would send it as basic
 * auth). Any text virtctl-ts prints passes through the same redaction.
 */

/** `scheme://userinfo@` anywhere in text, up to the last `@` before the host's end. */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#]*@/gi;

export function withoutUserinfo(text: string): string {
  return text.replace(USERINFO, '$1');
}
