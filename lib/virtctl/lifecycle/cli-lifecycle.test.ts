import { describe, expect, it, jest } from '@jest/globals';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { newStatus } from '../../kernel/errors/errors.ts';
import { ACCEPTED, useCliFixture, vmPath } from '../testing/cli-fixture.ts';
import { on, type Answer } from '../testing/fake-api.ts';
import { runCli, startCli } from '../testing/run-cli.ts';
import { waitFor } from '../../kernel/testing/wait.ts';

jest.setTimeout(30_000);

const f = useCliFixture();
const VMI_GET = '/apis/kubevirt.io/v1/namespaces/default/virtualmachineinstances/vm1';

/** Answers the VMI reads of --wait from this list in turn (the last one repeats). */
function vmiReads(answers: Answer[]): void {
  let i = 0;
  f.api.routes.push(on('GET', '/apis/kubevirt.io/v1', { status: 200, body: { kind: 'APIResourceList' } }));
  f.api.routes.push(on('GET', VMI_GET, () => answers[Math.min(i++, answers.length - 1)] ?? { status: 404 }));
}

const vmi = (uid: string, phase: string): Answer => ({
  status: 200,
  body: {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name: 'vm1', namespace: 'default', uid },
    spec: {},
    status: { phase },
  },
});

describe('virtctl-ts start, stop, restart', () => {
  it.each<[string[], string, unknown, string]>([
    [['start', 'vm1'], vmPath('default', 'vm1', 'start'), {}, 'VM vm1 was scheduled to start\n'],
    [
      ['start', 'vm1', '--paused', '--dry-run', '-n', 'other'],
      vmPath('other', 'vm1', 'start'),
      { paused: true, dryRun: ['All'] },
      'Dry Run execution\nVM vm1 was scheduled to start\n',
    ],
    [['stop', 'vm1'], vmPath('default', 'vm1', 'stop'), {}, 'VM vm1 was scheduled to stop\n'],
    [
      ['stop', 'vm1', '--force', '--grace-period', '0'],
      vmPath('default', 'vm1', 'stop'),
      { gracePeriod: 0 },
      'VM vm1 was scheduled to stop\n',
    ],
    [
      ['restart', '-n', 'x', 'vm1', '--force', '--grace-period=0'],
      vmPath('x', 'vm1', 'restart'),
      { gracePeriodSeconds: 0 },
      'VM vm1 was scheduled to restart\n',
    ],
  ])('%j PUTs %s with %j, with the client certificate', async (args, path, body, stdout) => {
    f.api.routes.push(on('PUT', path, ACCEPTED));
    const r = await f.cli(...args);
    expect(r).toEqual({ code: 0, stdout, stderr: '' });
    expect(f.sent()).toEqual([{ method: 'PUT', path, body: JSON.stringify(body) }]);
    expect(f.api.requests[0]?.clientCn).toBe('jane');
  });

  it("takes the context's namespace, and --context picks another", async () => {
    const withNs = await f.api.kubeconfig(f.dir, { namespace: 'ctxns' });
    f.api.routes.push(() => ACCEPTED);
    expect((await runCli(['--kubeconfig', withNs, 'start', 'a'])).code).toBe(0);
    expect((await runCli(['start', 'b', '--context', 'other'], { KUBECONFIG: withNs })).code).toBe(0);
    expect(f.api.requests.map((r) => r.path)).toEqual([
      vmPath('ctxns', 'a', 'start'),
      vmPath('elsewhere', 'b', 'start'),
    ]);
  });

  it.each<[string, Answer, number, string]>([
    [
      'a missing VM names the namespace and -n',
      { status: 404, body: newStatus(404, 'virtualmachines.kubevirt.io "vm1" not found') },
      4,
      'Error starting VirtualMachine: virtualmachines.kubevirt.io "vm1" not found\nVirtualMachine vm1 was not found in namespace default: check the name, or pass -n/--namespace <namespace>\n',
    ],
    [
      'a conflict is shown as the server sent it',
      { status: 409, body: newStatus(409, 'VM is already running') },
      5,
      'Error starting VirtualMachine: VM is already running\nVirtualMachine vm1 is not in a state that allows this; see the message above\n',
    ],
    [
      'forbidden names the verb and the subresource',
      { status: 403, body: newStatus(403, 'User "jane" cannot update resource "virtualmachines/start"') },
      6,
      'Error starting VirtualMachine: User "jane" cannot update resource "virtualmachines/start"\nyou may not update virtualmachines/start in namespace default (API group subresources.kubevirt.io): ask your cluster administrator for RBAC that grants it\n',
    ],
    [
      'unauthenticated',
      { status: 401, body: newStatus(401, 'Unauthorized') },
      7,
      'Error starting VirtualMachine: Unauthorized\nthe API server did not accept the credentials (401 Unauthorized): renew the token or client certificate in the kubeconfig, or pick another with --kubeconfig/--context\n',
    ],
    [
      'any other refusal',
      { status: 400, body: newStatus(400, 'RerunOnFailure does not support starting VM from failed state') },
      1,
      'Error starting VirtualMachine: RerunOnFailure does not support starting VM from failed state\n',
    ],
  ])('%s', async (_n, answer, code, stderr) => {
    f.api.routes.push(on('PUT', vmPath('default', 'vm1', 'start'), answer));
    expect(await f.cli('start', 'vm1')).toEqual({ code, stdout: '', stderr });
  });

  it('refuses bad usage with exit 3 before reading the kubeconfig', async () => {
    const r = await runCli(['stop', 'vm1', '--force', '--kubeconfig', '/nonexistent']);
    expect(r).toEqual({
      code: 3,
      stdout: '',
      stderr: 'Must both use --force=true and set --grace-period.\n',
    });
    for (const args of [
      ['start'],
      ['start', 'a', 'b'],
      ['start', 'a', '--bogus'],
      ['bogus'],
      ['stop', 'a', '--grace-period', 'x'],
    ]) {
      expect((await f.cli(...args)).code).toBe(3);
    }
    expect(f.api.requests).toEqual([]);
  });

  it('names the server and the flags when nothing listens there', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const a = s.address();
        s.close(() => {
          resolve(typeof a === 'object' && a !== null ? a.port : 0);
        });
      });
    });
    const dead = await f.api.kubeconfig(f.dir, { server: `https://127.0.0.1:${port}` });
    const r = await runCli(['--kubeconfig', dead, 'start', 'vm1']);
    expect(r.code).toBe(8);
    expect(r.stderr).toBe(
      `Error starting VirtualMachine: cannot reach the API server https://127.0.0.1:${port}: connection refused (connect ECONNREFUSED 127.0.0.1:${port})\n` +
        'check that the cluster is up and the kubeconfig names the right server, or pick another with --kubeconfig/--context\n',
    );
  });

  it('says TLS failed when the server certificate is not from the kubeconfig CA', async () => {
    const wrong = await f.api.kubeconfig(f.dir, { ca: f.api.pki.otherCa.cert });
    const r = await runCli(['--kubeconfig', wrong, 'start', 'vm1']);
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(
      /^Error starting VirtualMachine: cannot reach the API server https:\/\/127\.0\.0\.1:\d+: TLS failed \(/,
    );
  });

  it('exits 9 on a missing kubeconfig', async () => {
    const r = await runCli(['--kubeconfig', join(f.dir, 'none'), 'start', 'vm1']);
    expect(r.code).toBe(9);
    expect(r.stderr).toContain('cannot read it');
  });
});

describe('virtctl-ts --wait', () => {
  it('start --wait shows the phases until the VMI is Running', async () => {
    f.api.routes.push(on('PUT', vmPath('default', 'vm1', 'start'), ACCEPTED));
    vmiReads([{ status: 404 }, vmi('u1', 'Scheduling'), vmi('u1', 'Running')]);
    const r = await f.cli('start', 'vm1', '--wait');
    expect(r).toEqual({
      code: 0,
      stdout: 'VM vm1 was scheduled to start\n',
      stderr:
        'Waiting for VMI vm1 to be Running: no VMI yet\nWaiting for VMI vm1 to be Running: phase Scheduling\nVMI vm1 is Running\n',
    });
  });

  it('restart --wait waits for a VMI with a new uid', async () => {
    f.api.routes.push(on('PUT', vmPath('default', 'vm1', 'restart'), ACCEPTED));
    vmiReads([vmi('u1', 'Running'), vmi('u1', 'Running'), vmi('u2', 'Running')]);
    const r = await f.cli('restart', 'vm1', '--wait');
    expect(r.stderr).toBe(
      'Waiting for VMI vm1 to be Running again: phase Running (the old VMI)\nVMI vm1 is Running\n',
    );
    expect(f.sent().map((x) => x.method)).toEqual(['GET', 'GET', 'PUT', 'GET', 'GET']);
  });

  it('an interrupt ends the wait with exit 130', async () => {
    f.api.routes.push(on('PUT', vmPath('default', 'vm1', 'start'), ACCEPTED));
    vmiReads([vmi('u1', 'Scheduling')]);
    const run = startCli(['--kubeconfig', f.kc, 'start', 'vm1', '--wait']);
    await waitFor(() => run.stderr().includes('phase Scheduling'), 'the first progress line');
    run.abort();
    expect((await run.done).code).toBe(130);
  });

  it('stop --wait gives up after --timeout with exit 10', async () => {
    f.api.routes.push(on('PUT', vmPath('default', 'vm1', 'stop'), ACCEPTED));
    vmiReads([vmi('u1', 'Running')]);
    const r = await f.cli('stop', 'vm1', '--wait', '--timeout', '1s');
    expect(r.code).toBe(10);
    expect(r.stderr).toBe(
      'Waiting for VMI vm1 to be gone: phase Running\n' +
        "timed out after 1s waiting for VMI vm1 to be gone (last seen: phase Running): raise --timeout, or look at the VMI's events\n",
    );
  });
});
