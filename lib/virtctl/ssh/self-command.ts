/**
 * The command line that starts this same CLI again, for ssh's ProxyCommand (KubeVirt virtctl writes its
 * os.Args[0] there). virtctl-ts is node running a script: `node dist/virtctl-ts.mjs` from the build, `node
 * --import …/tsx/dist/loader.mjs cmd/virtctl.ts` from a checkout (bin/virtctl-ts), so it is node's path, the
 * node flags this process got (a debugger's dropped: a second one could not take its port), and the script.
 * Pure over the process facts.
 */
export interface ProcessFacts {
  readonly execPath: string;
  readonly execArgv: readonly string[];
  readonly argv: readonly string[];
}

const DEBUGGER_FLAG = /^--(inspect|inspect-brk|inspect-wait|debug-port|inspect-port)(=|$)/;

export function selfCommand(p: ProcessFacts): string[] {
  const script = p.argv[1];
  if (script === undefined || script === '') return ['virtctl-ts'];
  return [p.execPath, ...p.execArgv.filter((f) => !DEBUGGER_FLAG.test(f)), script];
}
