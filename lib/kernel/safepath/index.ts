/** Safe paths: resolve under a trusted root without following symlinks, act by descriptor (safepath.ts). */
export { openBeneath, SafeHandle, UnsafePathError, withHandle, type PathKind } from './safepath.ts';
export { bindMount, isMountPoint, remountReadOnly, unmountLazy } from './mount.ts';
export { connectBeneath } from './socket.ts';
export { listenBeneath, listenUnixSocket, type ListeningBeneath, type UnixSocketOptions } from './listen.ts';
export { resolveBeneath, resolveLinks } from './resolve.ts';
export { mkdirBeneath, replaceFileIn, walkBeneath } from './tree.ts';
