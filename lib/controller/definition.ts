/**
 * A controller as the `controller` role runs it: its queue, the watches it reads (declared next to it and
 * registered in the informer registry) and how it is built once the shared caches exist (kubevirt
 * watch/application.go builds each controller on the shared informers of virtinformers.go).
 */
import type { Registry } from 'prom-client';
import type { Clock } from '../kernel/clock.ts';
import type { EventRecorder } from '../kernel/controller/events.ts';
import type { Reconciler } from '../kernel/controller/runner.ts';
import type { KubeClient } from '../kernel/kube/types.ts';
import type { Logger } from '../kernel/log/log.ts';
import type { Caches, InformerRegistry, Watches } from './registry.ts';
import type { LauncherPodConfig } from './vmi/launcher-pod.ts';

/** The role's settings the controllers read. */
export interface ControllerSettings {
  launcher: LauncherPodConfig;
  random?: () => number;
  /** How long VMI events wait before they wake the VM controller (default 150 ms; 0: at once). */
  vmiEventDelayMs?: number;
  /** How old a virt-handler heartbeat may get before its node counts as unresponsive (default 5 min). */
  heartbeatTimeoutMs?: number;
  /**
   * Whether the evacuation controller runs (default true, as in KubeVirt). The Deckhouse fork turns it off (its
   * patch 048): there the virtualization-controller evacuates a VMI through its own VirtualMachineOperations.
   */
  evacuation?: boolean;
}

interface ControllerContext {
  /** Speaks kubevirt.io. */
  client: KubeClient;
  clock: Clock;
  log: Logger;
  metricsRegistry: Registry;
  /** Aborts when the controllers stop. */
  signal: AbortSignal;
  settings: ControllerSettings;
  /** Adds a key to this controller's queue. */
  enqueue: (key: string) => void;
  /** An event recorder for component (the source of the Events it writes). */
  recorder: (component: string) => EventRecorder;
}

export interface ControllerSpec<W extends Watches> {
  /** The queue name (the controller's name in logs and metrics). */
  queue: string;
  watches: W;
  /** Events wait while this queue has work: the objects first, what happened to them right after. */
  eventsWait?: boolean;
  /** Builds the controller on its caches and adds its event handlers; returns its reconcile. */
  start(caches: Caches<W>, ctx: ControllerContext): Reconciler;
}

export interface ControllerDefinition {
  readonly queue: string;
  readonly eventsWait: boolean;
  /** Registers the watches; the returned function builds the controller once the registry is built. */
  register(registry: InformerRegistry): (ctx: ControllerContext) => Reconciler;
}

export function defineController<W extends Watches>(spec: ControllerSpec<W>): ControllerDefinition {
  return {
    queue: spec.queue,
    eventsWait: spec.eventsWait ?? false,
    register: (registry) => {
      const registration = registry.register(spec.queue, spec.watches);
      return (ctx) => spec.start(registration.caches(), ctx);
    },
  };
}
