/** Safe paths: resolve under a trusted root without following symlinks, act by descriptor (safepath.ts). */
export {
  components,
  isSafeName,
  openBeneath,
  SafeHandle,
  UnsafePathError,
  withHandle,
  type PathKind,
  type UnsafeReason,
} from './safepath.ts';
export { bindMount, isMountPoint, unmountLazy } from './mount.ts';
export { connectBeneath } from './socket.ts';
export {
  listenBeneath,
  listenUnixSocket,
  type ListenBeneathOptions,
  type ListeningBeneath,
  type UnixSocketOptions,
} from './listen.ts';
export { resolveBeneath, resolveLinks, type ReadLinkAt } from './resolve.ts';
export { mkdirBeneath, replaceFileIn, walkBeneath } from './tree.ts';
