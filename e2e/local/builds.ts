/**
 * Everything the local cluster runs, from the project's cached build scripts (each prints its progress on
 * stderr and its cache dir last on stdout; a warm run returns at once): the control plane and node
 * binaries from the pinned Kubernetes module, containerd 2 from its pinned module, the small OCI images
 * (pause, the guests' containerDisk and kernel-boot images) and the project's image.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { realClock } from '../../lib/kernel/clock.ts';
import { runCacheBuild } from '../../testenv/cache-build.ts';

const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

export interface Binaries {
  etcd: string;
  kubeApiServer: string;
  kubelet: string;
  kubeProxy: string;
  kubeScheduler: string;
  kubeControllerManager: string;
  containerd: string;
  ctr: string;
  /** Put first on containerd's PATH: it finds containerd-shim-runc-v2 there. */
  containerdBinDir: string;
}

export interface ImageArchives {
  pause: string;
  guestDisk: string;
  /** A containerDisk holding an ISO (the hotplugged CD-ROM of hotplug-image.itest.ts). */
  guestIso: string;
  guestKernel: string;
  /** The project's image (absent when not asked for). */
  virt?: string;
}

export async function buildBinaries(timings: Record<string, number>): Promise<Binaries> {
  let t = realClock.now();
  const k8s = join(await runCacheBuild(here('../../testenv/build.sh'), ['node']), 'bin');
  timings['build: kubernetes binaries'] = realClock.now() - t;
  t = realClock.now();
  const ctrd = join(await runCacheBuild(here('./build-containerd.sh')), 'bin');
  timings['build: containerd'] = realClock.now() - t;
  return {
    etcd: join(k8s, 'etcd'),
    kubeApiServer: join(k8s, 'kube-apiserver'),
    kubelet: join(k8s, 'kubelet'),
    kubeProxy: join(k8s, 'kube-proxy'),
    kubeScheduler: join(k8s, 'kube-scheduler'),
    kubeControllerManager: join(k8s, 'kube-controller-manager'),
    containerd: join(ctrd, 'containerd'),
    ctr: join(ctrd, 'ctr'),
    containerdBinDir: ctrd,
  };
}

export async function buildImages(
  timings: Record<string, number>,
  withVirt: boolean,
): Promise<ImageArchives> {
  let t = realClock.now();
  const small = await runCacheBuild(here('./image/build-small.sh'));
  timings['build: pause and guest images'] = realClock.now() - t;
  const out: ImageArchives = {
    pause: join(small, 'pause.tar'),
    guestDisk: join(small, 'guest-disk.tar'),
    guestIso: join(small, 'guest-iso.tar'),
    guestKernel: join(small, 'guest-kernel.tar'),
  };
  if (!withVirt) return out;
  t = realClock.now();
  out.virt = join(await runCacheBuild(here('./image/build-image.sh')), 'image.tar');
  timings['build: kubevirt-ts image'] = realClock.now() - t;
  return out;
}
