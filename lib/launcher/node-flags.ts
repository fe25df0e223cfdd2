/**
 * Node flags the image's `virt` wrapper (scripts/build.mjs) gives the launcher role: V8 without its optimising
 * tiers and with small young-generation semispaces. A launcher runs once per VM and is not CPU-bound; this
 * keeps about 14 MiB off its RSS after syncs (bench/launcher.bench.ts measures both). Plain TypeScript with
 * erasable syntax only, so the build script imports it with Node's own type stripping.
 */
export const LAUNCHER_NODE_FLAGS: readonly string[] = ['--lite-mode', '--max-semi-space-size=1'];
