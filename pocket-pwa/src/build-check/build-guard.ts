/**
 * The verdict per paired Burrow (R-BUILD-2), as an external store for React, and the gate every connection's
 * input goes through (`guardConnection`). One per page: what the service worker serves is read once (a page
 * keeps the build it loaded; an accepted update reloads the page), and again when the browser finds another
 * service worker (`refresh`, issue 24.7: the relay's `sw.js` is part of what is compared).
 */
import type { BuildFile } from '@burrow/protocol';
import { type BuildVerdict, compareBuild } from './build-verdict.js';
import type { ServedBuild } from './served-build.js';

const CHECKING: BuildVerdict = { kind: 'checking' };

export class BuildGuard {
  readonly #served: (() => Promise<ServedBuild>) | null;
  #servedOnce: Promise<ServedBuild> | null = null;
  readonly #verdicts = new Map<string, BuildVerdict>();
  /** Reports per Burrow, so a slow read of an older report never overwrites a newer one. */
  readonly #reports = new Map<string, number>();
  /** The last `pocket-build` of each Burrow, for `refresh`. */
  readonly #vouched = new Map<string, readonly BuildFile[] | null>();
  readonly #listeners = new Set<() => void>();
  #version = 0;

  /**
   * `served` reads what the service worker serves; null when there is none to check (Vite's development
   * server): then every Burrow counts as vouched.
   */
  constructor(served: (() => Promise<ServedBuild>) | null) {
    this.#served = served;
  }

  get enforcing(): boolean {
    return this.#served !== null;
  }

  verdict(burrowId: string): BuildVerdict {
    if (this.#served === null) return { kind: 'vouched', buildId: 'development' };
    return this.#verdicts.get(burrowId) ?? CHECKING;
  }

  /** The Burrow's `pocket-build` (R-B-BUILD-1) arrived: compare it with what is served. */
  report(burrowId: string, vouched: readonly BuildFile[] | null): Promise<void> {
    if (this.#served === null) return Promise.resolve();
    const n = (this.#reports.get(burrowId) ?? 0) + 1;
    this.#reports.set(burrowId, n);
    this.#vouched.set(burrowId, vouched);
    this.#servedOnce ??= this.#served().catch(
      (e: unknown): ServedBuild => ({ kind: 'unavailable', why: e instanceof Error ? e.message : String(e) }),
    );
    return this.#servedOnce.then((served) => {
      if (this.#reports.get(burrowId) !== n) return;
      this.#set(burrowId, compareBuild(vouched, served));
    });
  }

  /**
   * The browser found another service worker (`updatefound`) or another one took this page over
   * (`controllerchange`): read what is served again, `sw.js` included, and judge every Burrow again.
   */
  refresh(): Promise<void> {
    if (this.#served === null) return Promise.resolve();
    this.#servedOnce = null;
    return Promise.all([...this.#vouched].map(([id, files]) => this.report(id, files))).then(() => undefined);
  }

  /** The pairing is gone. */
  forget(burrowId: string): void {
    this.#reports.delete(burrowId);
    this.#vouched.delete(burrowId);
    if (this.#verdicts.delete(burrowId)) this.#changed();
  }

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };
  getVersion = (): number => this.#version;

  #set(burrowId: string, verdict: BuildVerdict): void {
    this.#verdicts.set(burrowId, verdict);
    this.#changed();
  }

  #changed(): void {
    this.#version++;
    for (const l of this.#listeners) l();
  }
}
