/**
 * Feeds StorageHealth (src/state/storage-health.ts) for one daemon: every atomic write in the process is
 * reported as it happens, and a tiny probe file is written now and then so that the status also clears when
 * the disk has room again while nothing else writes, and notices a full disk before a change is lost. The
 * probe runs often only while something is wrong. Transitions are logged once, not on every failure.
 */
import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../session/activity.js';
import { observeWrites, writeFileAtomic } from '../state/atomic-file.js';
import { StorageHealth, type StorageHealthView } from '../state/storage-health.js';

/** Probe period while the state directory is writable: a few bytes and two fsyncs a minute. */
export const STORAGE_PROBE_HEALTHY_MS = 60_000;
/** Probe period while it is not, so `burrow status` clears within seconds of the disk recovering. */
export const STORAGE_PROBE_FAILING_MS = 2_000;
/** The probe's file name (dot-prefixed; removed right after it is written). */
export const STORAGE_PROBE_FILE = '.storage-probe';

export interface StorageWatch {
  view(): StorageHealthView;
  /** Writes the probe now (also what the timer does); resolves nothing, reports through the view. */
  probe(): void;
  stop(): void;
}

export function startStorageWatch(opts: {
  readonly stateDir: string;
  readonly now: () => number;
  readonly log: Logger;
}): StorageWatch {
  const health = new StorageHealth(opts.stateDir);
  const probePath = join(opts.stateDir, STORAGE_PROBE_FILE);
  let wasOk = true;
  const settle = () => {
    const v = health.view();
    if (v.ok !== wasOk) opts.log(v.ok ? 'info' : 'error', `state directory: ${v.text}`);
    wasOk = v.ok;
  };
  let timer: NodeJS.Timeout | undefined;
  let armedMs = 0;
  let stopped = false;
  const probe = () => {
    try {
      writeFileAtomic(probePath, 'ok\n');
      unlinkSync(probePath);
    } catch {
      // reported through the observer
    }
  };
  const arm = () => {
    clearTimeout(timer);
    timer = undefined;
    if (stopped) return;
    armedMs = health.view().ok ? STORAGE_PROBE_HEALTHY_MS : STORAGE_PROBE_FAILING_MS;
    timer = setTimeout(() => {
      timer = undefined;
      probe();
      if (timer === undefined) arm();
    }, armedMs);
    timer.unref();
  };
  const unobserve = observeWrites((path, error) => {
    // Only this daemon's own directory: install-service writes elsewhere.
    if (!path.startsWith(`${opts.stateDir}/`)) return;
    if (error === null) health.recordSuccess(path);
    else health.recordFailure(path, error, opts.now());
    settle();
    // A failing write re-arms at the fast period, so recovery is noticed in seconds, not a minute later.
    if (error !== null && armedMs !== STORAGE_PROBE_FAILING_MS) arm();
  });
  probe();
  arm();
  return {
    view: () => health.view(),
    probe,
    stop() {
      stopped = true;
      clearTimeout(timer);
      unobserve();
    },
  };
}
