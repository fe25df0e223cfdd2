/** `virt rewriter`: the kube-api-rewriter role (flags → RewriterRoleOptions → runRewriterRole until SIGTERM). */
import { Command, Option } from 'commander';
import { addKubeFlags } from '../lib/kernel/kube/index.ts';
import { createLogger } from '../lib/kernel/log/log.ts';
import { runUntilSignal } from '../lib/kernel/runtime/shutdown.ts';
import { rewriterRoleOptions, type RewriterFlags } from '../lib/rewriter/flags.ts';
import { DEFAULT_MAX_BODY_BYTES, WEBHOOK_CALLER_CN } from '../lib/rewriter/proxy/index.ts';
import { runRewriterRole } from '../lib/rewriter/role.ts';
import { parsed, positiveInt, verbosityOption, wholeNumber } from './flags.ts';

export function rewriterCommand(): Command {
  const cmd = new Command('rewriter').description(
    'proxy renaming kubevirt.io ⇄ internal.virtualization.deckhouse.io',
  );
  addKubeFlags(cmd)
    .option(
      '--listen <addr>',
      'kube-api proxy address (plain HTTP): loopback only (127.0.0.0/8, ::1, localhost); it forwards only requests with their own Authorization (401 otherwise)',
      '127.0.0.1:23915',
    )
    .option(
      '--allow-remote-listen',
      "let --listen take a non-loopback address; its clients' tokens then cross the network in clear text",
      false,
    )
    .option(
      '--listen-unix <path>',
      'kube-api proxy on a unix socket too (created 0600), where a request without credentials runs as the rewriter: for the container the sidecar serves',
    )
    .addOption(
      new Option(
        '--listen-unix-group <gid>',
        'make the --listen-unix socket 0660, owned by this group',
      ).argParser(wholeNumber),
    )
    .option('--upstream <url>', 'API server URL (default: from kubeconfig or in-cluster)')
    .option('--upstream-ca <file>', 'CA bundle (PEM) for the API server')
    .option('--upstream-token-file <file>', 'bearer token file for the API server (re-read as it rotates)')
    .option('--client-cert <file>', 'client certificate (PEM) for the API server')
    .option('--client-key <file>', 'client key (PEM) for the API server')
    .option(
      '--webhook-listen <addr>',
      'TLS webhook proxy address, reached by the API server on the Pod address (adds no credentials)',
      ':24192',
    )
    .option('--webhook-cert <file>', 'webhook proxy serving certificate (PEM)')
    .option('--webhook-key <file>', 'webhook proxy serving key (PEM)')
    .option('--webhook-upstream <url>', 'webhook server to forward to (the webhook proxy runs only with it)')
    .option('--webhook-upstream-ca <file>', 'CA bundle (PEM) for the webhook server')
    .option(
      '--webhook-upstream-client-cert <file>',
      'client certificate (PEM) the webhook proxy shows the webhook server',
    )
    .option('--webhook-upstream-client-key <file>', 'its key (PEM)')
    .option(
      '--webhook-client-ca-file <file>',
      "the CA (PEM) of the webhook proxy's callers' client certificates (the API server's webhook client, from its admission configuration); without it any caller is served",
    )
    .option(
      '--webhook-client-allowed-names <names>',
      "comma-separated common names a webhook caller's certificate must carry",
      WEBHOOK_CALLER_CN,
    )
    .option('--metrics-listen <addr>', '/metrics, /healthz and /readyz address', '127.0.0.1:9090')
    .addOption(
      parsed(
        '--max-body-bytes <n>',
        'largest request body accepted (413 above)',
        positiveInt,
        DEFAULT_MAX_BODY_BYTES,
      ),
    )
    .addOption(verbosityOption())
    .action(async (flags: RewriterFlags) => {
      const log = createLogger({ component: 'rewriter', verbosity: flags.verbosity });
      await runUntilSignal((signal) => runRewriterRole(rewriterRoleOptions(flags, log), signal), { log });
    });
  return cmd;
}
