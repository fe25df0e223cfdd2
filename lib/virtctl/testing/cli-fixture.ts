/**
 * Test support: one fake API server and kubeconfig per test file (started before the tests, routes and
 * recorded requests reset before each), with in-process runs of virtctl-ts against it.
 */
import { afterAll, beforeAll, beforeEach } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeApi, makeApiPki, type Answer, type Recorded } from './fake-api.ts';
import { runCli } from './run-cli.ts';

const SUB = '/apis/subresources.kubevirt.io/v1/namespaces';
export const vmPath = (ns: string, name: string, sub: string): string =>
  `${SUB}/${ns}/virtualmachines/${name}/${sub}`;
export const vmiPath = (ns: string, name: string, sub: string): string =>
  `${SUB}/${ns}/virtualmachineinstances/${name}/${sub}`;
export const ACCEPTED: Answer = { status: 202 };

export interface CliFixture {
  readonly api: FakeApi;
  readonly dir: string;
  /** The kubeconfig of the fake server (context main, no namespace). */
  readonly kc: string;
  cli(...args: string[]): ReturnType<typeof runCli>;
  /** Method, path and body of every request so far. */
  sent(): Pick<Recorded, 'method' | 'path' | 'body'>[];
}

export function useCliFixture(): CliFixture {
  let api: FakeApi | undefined;
  let dir = '';
  let kc = '';
  const need = (): FakeApi => {
    if (api === undefined) throw new Error('the fake API server is not started yet');
    return api;
  };
  beforeAll(async () => {
    api = await FakeApi.start(await makeApiPki());
    dir = await mkdtemp(join(tmpdir(), 'virtctl-test-'));
    kc = await api.kubeconfig(dir);
  });
  afterAll(async () => {
    await api?.close();
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    need().routes = [];
    need().wsRoutes = [];
    need().requests.splice(0);
  });
  return {
    get api(): FakeApi {
      return need();
    },
    get dir(): string {
      return dir;
    },
    get kc(): string {
      return kc;
    },
    cli: (...args) => runCli(['--kubeconfig', kc, ...args]),
    sent: () => need().requests.map(({ method, path, body }) => ({ method, path, body })),
  };
}
