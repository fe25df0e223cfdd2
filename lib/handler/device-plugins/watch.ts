/**
 * Change notification for a few directories, for the device plugins' health and kubelet-restart checks
 * (KubeVirt uses fsnotify on the device's parent dir and on the device-plugins dir): fs.watch on each dir, and
 * a poll every `pollMs` that calls onChange anyway and re-arms the watch of a dir that was missing or whose
 * watch failed. A missed or unsupported event therefore costs at most one period. onChange only signals
 * "look again": the caller stats what it cares about.
 */
import { watch, type FSWatcher } from 'node:fs';
import type { Clock, TimerHandle } from '../../kernel/clock.ts';
import type { Logger } from '../../kernel/log/log.ts';

export interface DirWatchOptions {
  readonly dirs: readonly string[];
  readonly pollMs: number;
  readonly clock: Clock;
  readonly log: Logger;
  readonly onChange: () => void;
}

export interface DirWatch {
  close(): void;
}

export function watchDirs(o: DirWatchOptions): DirWatch {
  const watchers = new Map<string, FSWatcher | undefined>();
  let closed = false;
  let timer: TimerHandle | undefined;

  const arm = (dir: string): void => {
    try {
      const w = watch(dir, { persistent: false }, () => {
        o.onChange();
      });
      w.on('error', (err) => {
        o.log.v(4).info('directory watch failed, polling', { path: dir, reason: err });
        w.close();
        watchers.set(dir, undefined);
        o.onChange();
      });
      watchers.set(dir, w);
    } catch {
      // Missing for now (e.g. the kubelet has not created its dir yet): the poll tries again.
      watchers.set(dir, undefined);
    }
  };

  const tick = (): void => {
    if (closed) return;
    for (const dir of new Set(o.dirs)) if (watchers.get(dir) === undefined) arm(dir);
    o.onChange();
    timer = o.clock.after(o.pollMs, tick);
  };

  for (const dir of new Set(o.dirs)) arm(dir);
  timer = o.clock.after(o.pollMs, tick);
  return {
    close: (): void => {
      closed = true;
      timer?.cancel();
      for (const w of watchers.values()) w?.close();
      watchers.clear();
    },
  };
}
