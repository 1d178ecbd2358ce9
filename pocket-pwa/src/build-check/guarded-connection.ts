/**
 * A Burrow connection whose input goes through the build check (R-BUILD-2): it reports the Burrow's
 * `pocket-build` to the BuildGuard, and while that Burrow does not vouch for the running build it sends nothing
 * that acts on the computer — no keystrokes, no paste, no terminal replies, no new session, no kill — and says
 * why. Reading (the list, output, history) and harmless requests (rename, TODO, acknowledge) go through.
 * What is asked while the check is under way waits for it: typing is held, requests wait.
 */
import type {
  ConnectionEvent,
  CreateOptions,
  PocketConnection,
  TerminalHandlers,
  TerminalLink,
} from '../app/connection-port.js';
import type { BuildGuard } from './build-guard.js';
import { allowsInput } from './build-verdict.js';

/**
 * How long after connecting a Burrow may take to send `pocket-build` (ms) before Pocket treats it as vouching for
 * nothing. R-B-BUILD-1 sends it right after `directory`; a Burrow older than that message never does, and Pocket
 * should then say why typing does nothing instead of refusing in silence.
 */
export const POCKET_BUILD_WAIT_MS = 10_000;

/**
 * Keystrokes, pastes and replies typed while the check is still under way (right after a reload, the verdict
 * waits for `pocket-build` and for the served files to be hashed): held, and sent in order once the build is
 * vouched for — dropped if it is not (the warning says why). Bounded: the check may never end.
 */
export const MAX_HELD_INPUT = 64 * 1024;

/**
 * Longest a request that acts (a new session, a kill, a resume) waits for a check still under way (ms). The check
 * ends once the Burrow's `pocket-build` is compared with the served files (or POCKET_BUILD_WAIT_MS after
 * connecting without one); hashing those files on a slow phone takes seconds, not this long.
 */
export const REQUEST_CHECK_WAIT_MS = 30_000;

/** The error a refused request rejects with (the list shows it in its error banner). */
export const REFUSED_TEXT =
  'Not sent: this copy of Pocket is not one your computer vouches for (see the warning above).';

/** The error of a request whose check did not end within REQUEST_CHECK_WAIT_MS. */
export const UNCHECKED_TEXT =
  'Not sent: this copy of Pocket is still being checked against your computer. Try again in a moment.';

export function guardConnection(
  inner: PocketConnection,
  burrowId: string,
  guard: BuildGuard,
  timers: { set(fn: () => void, ms: number): unknown; clear(handle: unknown): void } = {
    set: (fn, ms) => setTimeout(fn, ms),
    clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  },
): PocketConnection {
  // Subscribed before the hub starts the connection, so no `pocket-build` is missed.
  let wait: unknown = null;
  inner.subscribe((event: ConnectionEvent) => {
    if (event.type === 'pocket-build') {
      timers.clear(wait);
      void guard.report(burrowId, event.files);
    } else if (event.type === 'status') {
      timers.clear(wait);
      if (event.status.kind === 'connected') {
        wait = timers.set(() => void guard.report(burrowId, null), POCKET_BUILD_WAIT_MS);
      }
    }
  });
  const allowed = () => allowsInput(guard.verdict(burrowId));
  const refuse = () => Promise.reject(new Error(REFUSED_TEXT));
  const checking = () => guard.verdict(burrowId).kind === 'checking';
  /**
   * A request that acts on the computer goes only for a vouched build. Asked while the check is still under way
   * (Start tapped right after Pocket opened), it waits for the verdict: refused at once, the tap was lost with
   * a warning about a build that was in fact vouched (WebKit e2e: the form closed, and no session started).
   */
  const acting = <T>(request: () => Promise<T>): Promise<T> => {
    if (!checking()) return allowed() ? request() : refuse();
    return new Promise<void>((resolve) => {
      const done = () => {
        timers.clear(timer);
        unsubscribe();
        resolve();
      };
      const unsubscribe = guard.subscribe(() => {
        if (!checking()) done();
      });
      const timer = timers.set(done, REQUEST_CHECK_WAIT_MS);
    }).then(() =>
      checking() ? Promise.reject(new Error(UNCHECKED_TEXT)) : allowed() ? request() : refuse(),
    );
  };
  const guarded: PocketConnection = {
    get status() {
      return inner.status;
    },
    get statusText() {
      return inner.statusText;
    },
    get sessions() {
      return inner.sessions;
    },
    subscribe: (listener) => inner.subscribe(listener),
    start: () => inner.start(),
    stop: () => inner.stop(),
    attach(
      sessionId: string,
      size: { cols: number; rows: number },
      handlers: TerminalHandlers,
    ): TerminalLink {
      const link = inner.attach(sessionId, size, handlers);
      // Typed while checking (a reload, then the terminal paints before the verdict): held, not lost.
      const held: Array<{ reply: boolean; data: string | Uint8Array }> = [];
      let heldSize = 0;
      const release = () => {
        if (guard.verdict(burrowId).kind === 'checking' || held.length === 0) return;
        const items = held.splice(0);
        heldSize = 0;
        if (!allowed()) return;
        for (const h of items) h.reply ? link.reply(h.data as Uint8Array) : link.input(h.data);
      };
      const unsubscribe = guard.subscribe(release);
      const send = (reply: boolean, data: string | Uint8Array) => {
        if (guard.verdict(burrowId).kind === 'checking') {
          if (heldSize + data.length <= MAX_HELD_INPUT) {
            held.push({ reply, data });
            heldSize += data.length;
          }
          return;
        }
        release();
        if (!allowed()) return;
        if (reply) link.reply(data as Uint8Array);
        else link.input(data);
      };
      const gated: TerminalLink = {
        input: (data) => send(false, data),
        reply: (data) => send(true, data),
        resize: (cols, rows) => link.resize(cols, rows),
        fit: (cols, rows) => link.fit(cols, rows),
        detach: () => {
          unsubscribe();
          held.length = 0;
          link.detach();
        },
      };
      const history = link.history;
      return history ? { ...gated, history: (before, max) => history.call(link, before, max) } : gated;
    },
    presence: (state, flags) => inner.presence(state, flags),
    focus: (sessionId) => inner.focus(sessionId),
    acknowledge: (sessionId, withInput) => inner.acknowledge(sessionId, withInput),
    todo: (sessionId, action) => inner.todo(sessionId, action),
    dismiss: (sessionId) => inner.dismiss(sessionId),
    create: (options: CreateOptions) => acting(() => inner.create(options)),
    rename: (sessionId, name) => inner.rename(sessionId, name),
    kill: (sessionId) => acting(() => inner.kill(sessionId)),
  };
  const { forgetMe, pushTest, resume } = inner;
  if (forgetMe) guarded.forgetMe = () => forgetMe.call(inner);
  // A resume starts the agent again on the computer: as gated as a new session.
  if (resume) guarded.resume = (sessionId) => acting(() => resume.call(inner, sessionId));
  if (pushTest) guarded.pushTest = () => pushTest.call(inner);
  // The direct path changes how bytes travel, not what they do: read and set as the phone's settings are.
  Object.defineProperties(guarded, {
    path: { get: () => inner.path ?? null },
    directState: { get: () => inner.directState },
    relayConnected: { get: () => inner.relayConnected },
    networkPolicy: { get: () => inner.networkPolicy ?? null },
  });
  const { setNetworkPolicy, retryDirect } = inner;
  if (setNetworkPolicy) guarded.setNetworkPolicy = (policy) => setNetworkPolicy.call(inner, policy);
  if (retryDirect) guarded.retryDirect = () => retryDirect.call(inner);
  return guarded;
}
