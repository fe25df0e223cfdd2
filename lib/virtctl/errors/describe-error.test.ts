import { describe, expect, it } from '@jest/globals';
import { KvError, StatusError, newStatus } from '../../kernel/errors/errors.ts';
import { describeError } from './describe-error.ts';
import { EXIT } from './exit-codes.ts';
import { CommandFailed, RequestFailed, timeoutError, usageError, type ApiRequest } from './failures.ts';

const SERVER = 'https://api.example:6443';
const START = {
  method: 'PUT' as const,
  path: '/apis/subresources.kubevirt.io/v1/namespaces/x/virtualmachines/vm1/start',
};
const CONSOLE = {
  method: 'GET' as const,
  path: '/apis/subresources.kubevirt.io/v1/namespaces/x/virtualmachineinstances/v/console',
};

const status = (code: number, message: string): StatusError => new StatusError(newStatus(code, message));
const failed = (req: ApiRequest, cause: unknown, prefix = 'Error starting VirtualMachine'): CommandFailed =>
  new CommandFailed(prefix, new RequestFailed(req, SERVER, cause));
const errno = (code: string, message: string): Error => Object.assign(new Error(message), { code });
const transport = (cause: unknown): KvError => new KvError('KV_ERR_TRANSPORT', 'PUT /x: broke', { cause });

describe('describeError', () => {
  it.each<[string, unknown, number, string[]]>([
    [
      '404 names the namespace and -n',
      failed(START, status(404, 'virtualmachines.kubevirt.io "vm1" not found')),
      EXIT.notFound,
      [
        'Error starting VirtualMachine: virtualmachines.kubevirt.io "vm1" not found',
        'VirtualMachine vm1 was not found in namespace x: check the name, or pass -n/--namespace <namespace>',
      ],
    ],
    [
      '409 not running says to start it',
      failed(CONSOLE, status(409, 'VMI is not running'), "can't access VMI v"),
      EXIT.notRunning,
      [
        "can't access VMI v: VMI is not running",
        'VirtualMachineInstance v in namespace x is not running: start it first (virtctl-ts start v -n x)',
      ],
    ],
    [
      '409 on start is shown as sent',
      failed(START, status(409, 'VM is already running')),
      EXIT.notRunning,
      [
        'Error starting VirtualMachine: VM is already running',
        'VirtualMachine vm1 is not in a state that allows this; see the message above',
      ],
    ],
    [
      '403 names the verb, the resource/subresource and the namespace',
      failed(
        START,
        status(403, 'virtualmachines.subresources.kubevirt.io "vm1" is forbidden: User "jane" cannot update'),
      ),
      EXIT.forbidden,
      [
        'Error starting VirtualMachine: virtualmachines.subresources.kubevirt.io "vm1" is forbidden: User "jane" cannot update',
        'you may not update virtualmachines/start in namespace x (API group subresources.kubevirt.io): ask your cluster administrator for RBAC that grants it',
      ],
    ],
    [
      '401 asks for credentials',
      failed(START, status(401, 'Unauthorized')),
      EXIT.unauthorized,
      [
        'Error starting VirtualMachine: Unauthorized',
        'the API server did not accept the credentials (401 Unauthorized): renew the token or client certificate in the kubeconfig, or pick another with --kubeconfig/--context',
      ],
    ],
    [
      'another status is its message only',
      failed(START, status(400, 'RerunOnFailure does not support starting VM from failed state')),
      EXIT.failed,
      ['Error starting VirtualMachine: RerunOnFailure does not support starting VM from failed state'],
    ],
    [
      'connection refused names the server and the flags',
      failed(START, transport(errno('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.1:6443'))),
      EXIT.unreachable,
      [
        'Error starting VirtualMachine: cannot reach the API server https://api.example:6443: connection refused (connect ECONNREFUSED 10.0.0.1:6443)',
        'check that the cluster is up and the kubeconfig names the right server, or pick another with --kubeconfig/--context',
      ],
    ],
    [
      'DNS',
      new RequestFailed(START, SERVER, transport(errno('ENOTFOUND', 'getaddrinfo ENOTFOUND api.example'))),
      EXIT.unreachable,
      [
        'cannot reach the API server https://api.example:6443: host name not found (DNS) (getaddrinfo ENOTFOUND api.example)',
        'check that the cluster is up and the kubeconfig names the right server, or pick another with --kubeconfig/--context',
      ],
    ],
    [
      'connect timeout (the HTTP client gives up connecting)',
      new RequestFailed(START, SERVER, transport(errno('ETIMEDOUT', 'connect ETIMEDOUT 10.0.0.1:6443'))),
      EXIT.unreachable,
      [
        'cannot reach the API server https://api.example:6443: connection timed out (connect ETIMEDOUT 10.0.0.1:6443)',
        'check that the cluster is up and the kubeconfig names the right server, or pick another with --kubeconfig/--context',
      ],
    ],
    [
      'the server hangs up',
      new RequestFailed(START, SERVER, transport(errno('ECONNRESET', 'socket hang up'))),
      EXIT.unreachable,
      [
        'cannot reach the API server https://api.example:6443: connection reset (socket hang up)',
        'check that the cluster is up and the kubeconfig names the right server, or pick another with --kubeconfig/--context',
      ],
    ],
    [
      'TLS names the certificate authority',
      new RequestFailed(
        START,
        SERVER,
        transport(errno('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate')),
      ),
      EXIT.unreachable,
      [
        'cannot reach the API server https://api.example:6443: TLS failed (UNABLE_TO_VERIFY_LEAF_SIGNATURE: unable to verify the first certificate); check certificate-authority and the client certificate in the kubeconfig',
        'check that the cluster is up and the kubeconfig names the right server, or pick another with --kubeconfig/--context',
      ],
    ],
    [
      'usage',
      usageError('Must both use --force=true and set --grace-period.'),
      EXIT.usage,
      ['Must both use --force=true and set --grace-period.'],
    ],
    ['timeout', timeoutError('timed out'), EXIT.timeout, ['timed out']],
    [
      'config',
      new KvError('KV_ERR_CONFIG', 'kubeconfig /x (--kubeconfig): cannot read it'),
      EXIT.config,
      ['kubeconfig /x (--kubeconfig): cannot read it'],
    ],
    ['not implemented', new KvError('KV_ERR_NOT_IMPLEMENTED', 'no'), EXIT.notImplemented, ['no']],
    ['interrupted', new KvError('KV_ERR_ABORTED', 'interrupted'), EXIT.interrupted, ['interrupted']],
    ['anything else', new Error('boom'), EXIT.failed, ['boom']],
  ])('%s', (_n, err, exit, lines) => {
    expect(describeError(err, { namespace: 'default' })).toEqual({ exit, text: lines.join('\n') });
  });

  it('uses the command namespace when the request names none', () => {
    const d = describeError(
      new RequestFailed({ method: 'GET', path: '/version' }, SERVER, status(404, 'nope')),
      {
        namespace: 'mine',
      },
    );
    expect(d.text).toBe(
      'nope\nthe object was not found in namespace mine: check the name, or pass -n/--namespace <namespace>',
    );
  });
});
