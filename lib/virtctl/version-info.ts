/**
 * virtctl's version lines: `Client Version: version.Info{GitVersion:"…", GitCommit:"…", …}` (Go's %#v of
 * kubevirt's version.Info) and the same for the server's /version answer. KubeVirt's server sends gitVersion,
 * gitCommit, …; this project's api sends version and gitCommit, read as GitVersion and GitCommit. Pure.
 */
const FIELDS = [
  ['GitVersion', 'gitVersion'],
  ['GitCommit', 'gitCommit'],
  ['GitTreeState', 'gitTreeState'],
  ['BuildDate', 'buildDate'],
  ['GoVersion', 'goVersion'],
  ['Compiler', 'compiler'],
  ['Platform', 'platform'],
] as const;

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

export function versionInfo(info: unknown): string {
  const rec = typeof info === 'object' && info !== null ? (info as Record<string, unknown>) : {};
  const value = (json: string): string =>
    text(rec[json]) === '' && json === 'gitVersion' ? text(rec['version']) : text(rec[json]);
  const parts = FIELDS.map(([go, json]) => `${go}:${JSON.stringify(value(json))}`);
  return `version.Info{${parts.join(', ')}}`;
}

const ARCH: Readonly<Record<string, string>> = { x64: 'amd64', ia32: '386' };

/** This build as a version.Info (no Go: the compiler field names the runtime). */
export function clientInfo(
  build: { version: string; gitCommit: string },
  runtime: { platform: string; arch: string; node: string },
): Record<string, string> {
  return {
    gitVersion: build.version,
    gitCommit: build.gitCommit,
    compiler: `node ${runtime.node}`,
    platform: `${runtime.platform}/${ARCH[runtime.arch] ?? runtime.arch}`,
  };
}
