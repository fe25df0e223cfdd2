/**
 * virtctl-ts: the CLI a person runs with a kubeconfig (lib/virtctl holds the commands). SIGINT and SIGTERM
 * abort what is in flight (console and vnc end cleanly, the rest exit 130), a second one exits at once; the exit
 * code is the run's (`virtctl-ts --help` lists them).
 */
import { runVirtctl } from '../lib/virtctl/program.ts';

const stop = new AbortController();
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    if (stop.signal.aborted) process.exit(130);
    stop.abort();
  });
}

const code = await runVirtctl(process.argv.slice(2), {
  io: {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    signal: stop.signal,
  },
});
process.exit(code);
