/**
 * The VMI subresources virt-handler serves and virt-api forwards to it (kubevirt cmd/virt-handler/virt-handler.go
 * runServer and pkg/virt-api/api.go composeSubresources, tag v1.6.2), each with its kind and HTTP method: the
 * lifecycle commands are PUTs, the guest-agent queries and the console, VNC and port-forward websocket streams
 * GETs (port-forward's path goes on with `/{port}/{protocol}`). The
 * handler's router serves exactly these, the api's serves them beside its own. Pure.
 */
export type HandlerCallKind = 'command' | 'query' | 'stream';
export type HandlerMethod = 'GET' | 'PUT';

export const HANDLER_SUBRESOURCES = {
  pause: 'command',
  unpause: 'command',
  freeze: 'command',
  unfreeze: 'command',
  softreboot: 'command',
  reset: 'command',
  guestosinfo: 'query',
  userlist: 'query',
  filesystemlist: 'query',
  console: 'stream',
  vnc: 'stream',
  portforward: 'stream',
} as const satisfies Readonly<Record<string, HandlerCallKind>>;

export type HandlerSubresource = keyof typeof HANDLER_SUBRESOURCES;
type OfKind<K extends HandlerCallKind> = {
  [S in HandlerSubresource]: (typeof HANDLER_SUBRESOURCES)[S] extends K ? S : never;
}[HandlerSubresource];
export type HandlerCommand = OfKind<'command'>;
export type HandlerQuery = OfKind<'query'>;
export type HandlerStream = OfKind<'stream'>;

const METHOD_OF_KIND: Readonly<Record<HandlerCallKind, HandlerMethod>> = {
  command: 'PUT',
  query: 'GET',
  stream: 'GET',
};

export function isHandlerSubresource(s: string): s is HandlerSubresource {
  return Object.hasOwn(HANDLER_SUBRESOURCES, s);
}

/** `s` is a subresource of that kind. */
export function isHandlerSubresourceOf<K extends HandlerCallKind>(s: string, kind: K): s is OfKind<K> {
  return isHandlerSubresource(s) && HANDLER_SUBRESOURCES[s] === kind;
}

export function handlerMethod(sub: HandlerSubresource): HandlerMethod {
  return METHOD_OF_KIND[HANDLER_SUBRESOURCES[sub]];
}

/** Every subresource with its method. */
export const HANDLER_SUBRESOURCE_METHODS = Object.fromEntries(
  Object.keys(HANDLER_SUBRESOURCES).map((s) => [s, handlerMethod(s as HandlerSubresource)]),
) as Readonly<Record<HandlerSubresource, HandlerMethod>>;
