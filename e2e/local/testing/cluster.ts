/**
 * The local cluster for a test file: the one in KV_LOCAL_CLUSTER_DIR when set, or the default stack when
 * it is already up (both are left running), otherwise one brought up here and taken down by release(). A file
 * that runs roles of its own gets it without the operator's install (`./dev run` or a scenario left it: it is
 * uninstalled); the end-to-end scenarios get it with the install (made when missing, left for the next). release()
 * fails the file when it left a cluster-scoped test object behind (cluster-leftovers.ts).
 *
 * With KV_LOCAL_CLUSTER_SHARE=1 (`npm test`'s integration run) a cluster a file brought up is left up, marked, for
 * the next file (a second node it added still goes): the files and the scenarios' one install share it, and the
 * run's global teardown takes it down (downIfKept), as does a file that needs the cluster down at its start.
 */
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createLogger, type Logger } from '../../../lib/kernel/log/log.ts';
import { down, removeSecondNode, status, up } from '../cluster.ts';
import { installVirt, uninstallVirt, virtInstalled } from '../virt-install.ts';
import { virtClients } from '../virt.ts';
import { Api } from '../kube.ts';
import { defaultStackDir } from '../layout.ts';
import { checkLeftovers, listClusterObjects } from './cluster-leftovers.ts';

const CLUSTER_DIR_ENV = 'KV_LOCAL_CLUSTER_DIR';
const SHARE_ENV = 'KV_LOCAL_CLUSTER_SHARE';
/** In the stack dir: the cluster up there was brought up by a test file and left for the next. */
const KEPT_MARK = '.kept-for-tests';

const sharing = (): boolean => process.env[SHARE_ENV] === '1';

/** The stack dir test files use: KV_LOCAL_CLUSTER_DIR, or the default one. */
export function testStackDir(): string {
  const given = process.env[CLUSTER_DIR_ENV];
  return given !== undefined && given !== '' ? given : defaultStackDir();
}

/** Takes down a cluster a test file left up for the next one; true when there was one. */
export async function downIfKept(dir: string, log: Logger): Promise<boolean> {
  const mark = join(dir, KEPT_MARK);
  if (!existsSync(mark)) return false;
  await down({ dir, log });
  await rm(mark, { force: true });
  return true;
}

export interface TestCluster {
  dir: string;
  kubeconfig: string;
  api: Api;
  /**
   * Fails when a cluster-scoped test object made since useLocalCluster is still there; takes the cluster down
   * when this file brought it up.
   */
  release(): Promise<void>;
}

export interface UseLocalClusterOptions {
  /** With the operator's install (the scenarios), or without it (default: files that run their own roles). */
  readonly virt?: 'installed' | 'absent';
  /** 2: the second node too (second-node.ts), added here and removed by release() unless it was there. */
  readonly nodes?: 1 | 2;
}

export async function useLocalCluster(o: UseLocalClusterOptions = {}): Promise<TestCluster> {
  const dir = testStackDir();
  const log = createLogger({ component: 'local-cluster-test' });
  const was = await status(dir);
  const ours = was?.ready !== true;
  const ourSecondNode = o.nodes === 2 && was?.secondNode === undefined;
  // An up that fails half-way is taken down again when this file began it, so the next file starts clean.
  const r = await up({ dir, log, nodes: o.nodes ?? 1 }).catch(async (err: unknown) => {
    if (ours) {
      await down({ dir, log }).catch((e: unknown) => {
        log.error('down after a failed up', { err: String(e) });
      });
    }
    throw err;
  });
  const c = virtClients(r.kubeconfig, 'kubevirt-ts/local-test');
  try {
    if (o.virt === 'installed') {
      await installVirt(c, {
        dir,
        progress: (line) => {
          log.info('installing', { status: line });
        },
      });
    } else if (await virtInstalled(c)) {
      // The file runs its own controller and handler: the installed ones would act on the same VMs and node,
      // and the installed api would own the APIService the file registers.
      log.warning('uninstalling the operator and the roles it installed, for a file that runs its own');
      await uninstallVirt(c, { dir });
    }
  } catch (err) {
    // Like a failed up: the next file starts from a cluster that is down.
    if (ours) {
      await down({ dir, log }).catch((e: unknown) => {
        log.error('down after a failed install or uninstall', { err: String(e) });
      });
    }
    throw err;
  } finally {
    await c.close();
  }
  const api = await Api.fromKubeconfig(r.kubeconfig);
  const before = await listClusterObjects(api);
  return {
    dir,
    kubeconfig: r.kubeconfig,
    api,
    release: async () => {
      const left = await checkLeftovers(api, before, 60_000).then(
        () => undefined,
        (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
      );
      if (ours && !sharing()) await down({ dir, log });
      else {
        if (ours) await writeFile(join(dir, KEPT_MARK), '');
        if (ourSecondNode) await removeSecondNode(dir, log);
      }
      if (left !== undefined) throw left;
    },
  };
}
