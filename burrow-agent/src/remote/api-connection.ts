/**
 * Remote API v1 server for ONE authenticated phone connection (DESIGN §4.3, protocol/SPEC.md). It turns
 * decoded client messages into calls on the session registry and the attention port, and session events into
 * Burrow messages. Malformed or out-of-order messages get an `error` reply (or a close when the stream itself
 * is broken); nothing a phone sends can throw out of here.
 */
import { homedir } from 'node:os';
import {
  type BuildFile,
  type BurrowMessage,
  type ClientMessage,
  CloseCode,
  decodeClientMessage,
  ErrorCode,
  INPUT_WINDOW_BYTES,
  MAX_ERROR_TEXT_CHARS,
  MAX_NOISE_PLAINTEXT_BYTES,
  MAX_SESSION_ID_CHARS,
  MAX_SNAPSHOT_BYTES,
  type NetworkPolicy,
  PROTOCOL_VERSION,
  ProtocolError,
  type SessionEntry,
} from '@burrow/protocol';
import { AGENT_VERSION } from '../program/program.js';
import { refilledSnapshot } from '../screen/refill.js';
import type { SessionActivity } from '../session/activity.js';
import type { Session } from '../session/session.js';
import {
  ConflictError,
  LimitError,
  NotFoundError,
  type SessionRegistry,
} from '../session/session-registry.js';
import type { Attachment, ViewerEvent, ViewerSink } from '../viewer/viewer.js';
import type { AttentionPort } from './attention-port.js';
import { directoryEntry } from './directory-entry.js';
import type { RemoteSettingsPort } from './remote-settings-port.js';

/**
 * While the link is backed up, how often to check whether it drained (ms). Short: at tens of MB/s the
 * 768 KiB between "behind" and "drained" empties in ~15 ms, so a long poll leaves the viewer idle most of the
 * time (the full-chain bench found 50 ms capping throughput). A backed-up check is one property read.
 */
export const DRAIN_POLL_MS = 5;
/**
 * Output bytes per `output` message: the most that keeps the whole frame (kind, session id, offset: at most
 * 10 + MAX_SESSION_ID_CHARS bytes, protocol frame.ts) inside one Noise transport message, so the session's
 * gathered reads go out as one sealed message each (issue 14: ~49,000 messages for 205 MB before).
 */
export const MAX_OUTPUT_EVENT_BYTES = MAX_NOISE_PLAINTEXT_BYTES - (10 + MAX_SESSION_ID_CHARS);
/** Below this backlog (bytes) viewers that fell behind are caught up again (resumed or resynced). */
export const DRAINED_BELOW_BYTES = 256 * 1024;
/** Session activity that can change a directory entry (status, size, presence in the list). */
const DIRECTORY_ACTIVITIES: ReadonlySet<SessionActivity['type']> = new Set([
  'spawn',
  'exit',
  'remove',
  'resize',
]);
/** How often the directory is re-checked for changes no event announces (output activity, exit codes). */
export const DIRECTORY_REFRESH_MS = 2_000;
/**
 * A phone connection that sent nothing for this long is closed (issue 8 "network cut without a close"): the
 * phone pings end to end every POCKET_KEEPALIVE.pingIntervalMs (5 s, protocol/SPEC.md `ping`), so this is four
 * missed pings. Without it a phone whose network vanished without a FIN would stay attached (its viewer
 * counted, output queued for it) until the relay's TCP gave up, which may be never.
 */
export const PHONE_SILENCE_CLOSE_MS = 20_000;
/**
 * R-FLOW-2: input is acknowledged every this many bytes — far inside the phone's INPUT_WINDOW_BYTES, so a phone
 * never waits for the acknowledgement of a few keystrokes, while typing costs no extra message.
 */
export const INPUT_ACK_EVERY_BYTES = 64 * 1024;
/** While a terminal holds INPUT_WINDOW_BYTES its program has not read, how often to look again (ms). */
export const INPUT_DRAIN_POLL_MS = 20;

export interface ApiConnectionOptions {
  readonly viewerId: string;
  /**
   * The phone across its connections (its device id): size authority knows its reconnect as the same viewer
   * (R-SIZE-6). Defaults to `viewerId` (every connection a viewer of its own).
   */
  readonly viewerIdentity?: string;
  readonly burrowName: string;
  readonly registry: SessionRegistry;
  readonly attention: AttentionPort;
  /** Sends one Burrow message (the caller encodes, fragments, encrypts); the whole frame's length in bytes. */
  readonly send: (message: BurrowMessage) => number;
  /** Bytes queued on the relay link but not yet sent (for slow-viewer handling; shared by every phone). */
  readonly backlog: () => number;
  readonly close: (code: CloseCode) => void;
  readonly log: (line: string) => void;
  /** `forget-me`: the phone unpairs itself (the endpoint revokes this device, which closes the connection). */
  readonly forgetMe: () => Promise<void>;
  /** This phone's push delivery id (for push-status). */
  readonly deliveryId: string;
  /** push-*, settings-*, watch-rules-*; absent: answered unknown_message. */
  readonly settings?: RemoteSettingsPort;
  /** Close after this long without a frame from the phone (ms); default PHONE_SILENCE_CLOSE_MS. */
  readonly silenceCloseMs?: number;
  /** R-B-BUILD-1: the files of the Pocket build this Burrow vouches for (vouched-build.ts); absent: none. */
  readonly pocketBuild?: readonly BuildFile[] | null;
  /** `resume` (agent recovery); absent: answered unknown_message and no `resume` capability. */
  readonly resume?: ResumePort;
  /** The direct path's signalling and the network policy (burrow-agent/src/direct/); absent: refused. */
  readonly direct?: DirectPort;
}

/** What the connection hands the direct path (SPEC "The direct path"). */
export interface DirectPort {
  offer(rid: number, sdp: string): void;
  candidate(candidate: string, mid: string): void;
  /** The policy in force, or null when this Burrow has none. */
  policy(): NetworkPolicy | null;
  /** Validates and saves (RangeError naming the R-NET rule); every other phone hears of it. */
  setPolicy(value: unknown): NetworkPolicy;
}

/**
 * R-C-RESUME-1: starts a resumable session's coding agent again (src/recovery/agent-recovery.ts). Rejects with
 * NotFoundError (no such session), ConflictError (running, or nothing to resume) or RecoveryError (what is gone).
 */
export type ResumePort = (sessionId: string) => Promise<{ readonly id: string }>;

interface Attached {
  readonly attachment: Attachment;
}

/** An attach waiting for its answer (`attached` or `resumed`), and the size state to send right after it. */
interface PendingAnswer {
  rid: number | null;
  size: Extract<BurrowMessage, { type: 'size-changed' }> | null;
}

export class ApiConnection {
  readonly #o: ApiConnectionOptions;
  #helloed = false;
  #closed = false;
  readonly #attached = new Map<string, Attached>();
  /** What this phone last received per session, as JSON with and without the activity fields. */
  #sent = new Map<string, SentEntry>();
  #unsubscribe: (() => void)[] = [];
  #refresh: NodeJS.Timeout | null = null;
  #diffSoon: NodeJS.Immediate | null = null;
  #drainPoll: NodeJS.Timeout | null = null;
  readonly #silence: NodeJS.Timeout;
  /** R-FLOW-1: whole-frame bytes sent to this phone, and the phone's last `ack` of them. */
  #sentBytes = 0;
  #ackedBytes = 0;
  /** R-FLOW-2: this phone's input bytes handled, the last `input-ack` sent, and the drain poll while waiting. */
  #inputReceived = 0;
  #inputAcked = 0;
  #inputPoll: NodeJS.Timeout | undefined;
  /** Attachments made on this connection, for unique sink ids (a re-attach overlaps the one it replaces). */
  #attachCount = 0;

  constructor(options: ApiConnectionOptions) {
    this.#o = options;
    const silenceMs = options.silenceCloseMs ?? PHONE_SILENCE_CLOSE_MS;
    if (!Number.isInteger(silenceMs) || silenceMs <= 0)
      throw new RangeError('silenceCloseMs must be a positive integer');
    this.#silence = setTimeout(() => {
      this.#o.log(`remote: ${this.#o.viewerId} sent nothing for ${silenceMs} ms; closing its connection`);
      // The phone is most likely unreachable; the close frees the relay's socket and this connection's viewer,
      // and a phone that was merely frozen reconnects and says why it was closed.
      this.#close(CloseCode.PHONE_SILENT);
    }, silenceMs);
    this.#silence.unref();
  }

  /** One whole frame from the phone. */
  receive(frame: Uint8Array) {
    if (this.#closed) return;
    this.#silence.refresh();
    let message: ClientMessage;
    try {
      message = decodeClientMessage(frame);
    } catch (error) {
      if (!(error instanceof ProtocolError)) throw error;
      if (error.fatal) {
        this.#close(CloseCode.PROTOCOL_VIOLATION);
        return;
      }
      // The rule and why, never a value the phone sent (R-ERR-1): what a person needs to fix the sender.
      this.#error(error.rid ?? null, error.code, error.message);
      return;
    }
    try {
      this.#handle(message);
    } catch (error) {
      if (message.type === 'input') this.#inputTaken(message.session, message.data.length);
      const rid = 'rid' in message ? (message.rid as number) : null;
      if (error instanceof NotFoundError) {
        this.#error(rid, ErrorCode.UNKNOWN_SESSION, 'no such session');
        return;
      }
      if (error instanceof RangeError || error instanceof TypeError) {
        this.#error(rid, ErrorCode.BAD_REQUEST, error.message);
        return;
      }
      // A limit reached or a name taken: the phone is told which, in the session layer's words.
      if (error instanceof ConflictError) {
        this.#error(
          rid,
          error instanceof LimitError ? ErrorCode.LIMIT_EXCEEDED : ErrorCode.CONFLICT,
          error.message,
        );
        return;
      }
      this.#o.log(`remote: ${message.type} failed: ${(error as Error).message}`);
      this.#error(rid, ErrorCode.INTERNAL, 'internal error');
    }
  }

  /** The connection is gone (closed by either side): detach everything. */
  dispose() {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#silence);
    clearInterval(this.#inputPoll);
    // The phone did not say goodbye: it may be back (R-SIZE-5).
    for (const a of this.#attached.values()) a.attachment.detach('lost');
    this.#attached.clear();
    for (const u of this.#unsubscribe) u();
    if (this.#refresh) clearInterval(this.#refresh);
    if (this.#diffSoon) clearImmediate(this.#diffSoon);
    if (this.#drainPoll) clearInterval(this.#drainPoll);
    this.#o.attention.viewerGone(this.#o.viewerId);
  }

  #close(code: CloseCode) {
    this.#o.close(code);
    this.dispose();
  }

  /**
   * R-FLOW-2: `n` more bytes of this phone's input were handled (written to `session`'s terminal, or refused
   * and dropped). They are acknowledged every INPUT_ACK_EVERY_BYTES, once the terminal has less than
   * INPUT_WINDOW_BYTES waiting for its program; while it has more, a poll waits for the program to read, so the
   * phone holds the rest of a paste back instead of the daemon queueing it.
   */
  #inputTaken(session: string, n: number) {
    this.#inputReceived += n;
    if (this.#inputPoll !== undefined || this.#inputReceived - this.#inputAcked < INPUT_ACK_EVERY_BYTES)
      return;
    const drained = () => {
      try {
        return this.#o.registry.get(session).pendingInputBytes() < INPUT_WINDOW_BYTES;
      } catch {
        return true; // gone: nothing waits for it
      }
    };
    const ack = () => {
      this.#inputAcked = this.#inputReceived;
      this.#send({ type: 'input-ack', received: this.#inputReceived });
    };
    if (drained()) {
      ack();
      return;
    }
    this.#inputPoll = setInterval(() => {
      if (this.#closed || !drained()) return;
      clearInterval(this.#inputPoll);
      this.#inputPoll = undefined;
      ack();
    }, INPUT_DRAIN_POLL_MS);
    this.#inputPoll.unref();
  }

  /** Sends one message on this connection (the direct path's signalling goes this way too). */
  send(message: BurrowMessage): void {
    this.#send(message);
  }

  /** R-NET-3: the network policy changed; this phone hears it (after its first hello). */
  policyChanged(policy: NetworkPolicy): void {
    if (this.#helloed) this.#send({ type: 'network-policy', rid: null, policy });
  }

  #send(message: BurrowMessage) {
    if (this.#closed) return;
    try {
      this.#sentBytes += this.#o.send(message);
    } catch (error) {
      // An encoder refusal is our bug (e.g. a field over its bound); never let it kill the daemon.
      this.#o.log(`remote: could not send ${message.type}: ${(error as Error).message}`);
    }
  }

  #error(rid: number | null, code: ErrorCode, message: string) {
    // A resume's reason names a path and what to do: it may take the protocol's whole bound.
    const max = code === ErrorCode.SPAWN_FAILED ? MAX_ERROR_TEXT_CHARS : 200;
    this.#send({ type: 'error', rid, code, message: message.slice(0, max).replace(/[^\x20-\x7e]/g, '?') });
  }

  #handle(m: ClientMessage) {
    if (!this.#helloed) {
      if (m.type !== 'hello') {
        this.#close(CloseCode.PROTOCOL_VIOLATION);
        return;
      }
      this.#helloed = true;
      this.#send({
        type: 'hello',
        burrowName: this.#o.burrowName,
        protocolVersion: PROTOCOL_VERSION,
        agentVersion: AGENT_VERSION,
        capabilities: this.#o.resume === undefined ? [] : ['resume'],
      });
      this.#sendDirectory();
      // R-B-BUILD-1: Pocket learns, from its own computer and over Noise, which build of its code to trust.
      if (m.viewer === 'pocket')
        this.#send({ type: 'pocket-build', files: this.#o.pocketBuild ? [...this.#o.pocketBuild] : null });
      // R-NET-3: whether to offer a direct path at all, and with which ICE servers.
      const policy = this.#o.direct?.policy();
      if (policy) this.#send({ type: 'network-policy', rid: null, policy });
      // Only activity that can change an entry (issue 14: a keystroke's `input` activity used to re-diff the
      // whole directory on its way to the PTY); typing that changes attention state arrives via onChange.
      this.#unsubscribe.push(
        this.#o.registry.subscribe((a) => {
          if (DIRECTORY_ACTIVITIES.has(a.type)) this.#scheduleDiff();
        }),
      );
      this.#unsubscribe.push(this.#o.attention.onChange(() => this.#scheduleDiff()));
      this.#refresh = setInterval(() => this.#diffDirectory(true), DIRECTORY_REFRESH_MS);
      this.#refresh.unref();
      return;
    }
    const { registry, attention, viewerId } = this.#o;
    switch (m.type) {
      case 'hello':
        this.#close(CloseCode.PROTOCOL_VIOLATION);
        return;
      case 'ping':
        this.#send({ type: 'pong', rid: m.rid });
        return;
      case 'ack':
        // R-FLOW-1: never backwards, never beyond what was sent.
        if (m.received < this.#ackedBytes || m.received > this.#sentBytes) {
          this.#o.log(`remote: ${this.#o.viewerId} acknowledged bytes it was never sent; closing`);
          this.#close(CloseCode.PROTOCOL_VIOLATION);
          return;
        }
        this.#ackedBytes = m.received;
        // The phone took a window's worth in: wake viewers waiting on it now rather than at the next poll.
        if (this.#drainPoll && this.#backlog() < DRAINED_BELOW_BYTES) this.#drainedNow();
        return;
      case 'attach':
        this.#attach(registry.get(m.session), m);
        return;
      case 'detach': {
        const a = this.#attached.get(m.session);
        this.#attached.delete(m.session);
        a?.attachment.detach();
        return;
      }
      case 'history': {
        const { rid, session } = m;
        registry
          .get(session)
          .history(m.beforeLine, m.maxLines)
          .then(
            (page) =>
              this.#send({
                type: 'history-page',
                rid,
                session,
                firstLine: page.first,
                endLine: page.first + page.lines.length,
                hasOlder: page.first > 0,
                data: page.lines.join('\r\n'),
              }),
            (e: Error) =>
              this.#error(
                rid,
                e instanceof RangeError ? ErrorCode.BAD_REQUEST : ErrorCode.INTERNAL,
                e.message,
              ),
          );
        return;
      }
      case 'resize':
        this.#attachedOr(m.session, null, (a) => a.attachment.resize(m.cols, m.rows));
        return;
      case 'fit':
        this.#attachedOr(m.session, null, (a) => a.attachment.fit(m.cols, m.rows));
        return;
      case 'input':
        this.#attachedOr(m.session, null, (a) => {
          // Presence first: the keystroke comes from a viewer that is, by typing, present.
          if (m.kind === 'user') attention.activity?.(viewerId);
          a.attachment.input(m.data);
          if (m.kind === 'user') attention.acknowledge(m.session, viewerId, true);
        });
        this.#inputTaken(m.session, m.data.length);
        return;
      case 'presence':
        attention.presence(viewerId, { state: m.state, focused: m.focused, visible: m.visible });
        return;
      case 'focus':
        attention.focus(viewerId, m.session);
        return;
      case 'acknowledge':
        registry.get(m.session);
        attention.acknowledge(m.session, viewerId, m.withInput);
        return;
      case 'todo':
        registry.get(m.session);
        attention.todo(m.session, m.action);
        return;
      case 'dismiss':
        registry.get(m.session);
        attention.dismiss(m.session);
        return;
      case 'create': {
        const s = registry.create({
          name: m.name ?? undefined,
          cwd: m.cwd ?? homedir(),
          command: m.argv ?? [],
          cols: m.cols,
          rows: m.rows,
        });
        this.#send({ type: 'created', rid: m.rid, session: s.id });
        this.#diffDirectory();
        return;
      }
      case 'rename':
        registry.rename(m.session, m.name);
        this.#send({ type: 'ok', rid: m.rid });
        this.#diffDirectory();
        return;
      case 'kill': {
        const rid = m.rid;
        // A session that died with a previous daemon is a restored entry, not a live one: kill removes it.
        if (registry.restored(m.session) === null) registry.get(m.session);
        registry.kill(m.session).then(
          () => {
            this.#send({ type: 'ok', rid });
            this.#diffDirectory();
          },
          (e: Error) => this.#error(rid, ErrorCode.INTERNAL, e.message),
        );
        return;
      }
      case 'clear': {
        // Removes an exited session from the list; a running one must be killed (a deliberate, separate verb).
        const rid = m.rid;
        if (registry.restored(m.session) === null && registry.get(m.session).running) {
          this.#error(rid, ErrorCode.CONFLICT, 'the session is still running; kill it instead');
          return;
        }
        registry.kill(m.session).then(
          () => {
            this.#send({ type: 'ok', rid });
            this.#diffDirectory();
          },
          (e: Error) => this.#error(rid, ErrorCode.INTERNAL, e.message),
        );
        return;
      }
      case 'resume': {
        const rid = m.rid;
        const resume = this.#o.resume;
        if (resume === undefined) {
          this.#error(rid, ErrorCode.UNKNOWN_MESSAGE, 'resume is not supported by this Burrow');
          return;
        }
        resume(m.session).then(
          (s) => {
            this.#send({ type: 'created', rid, session: s.id });
            this.#diffDirectory();
          },
          (e: Error) => this.#error(rid, resumeErrorCode(e), e.message),
        );
        return;
      }
      case 'direct-offer':
        if (!this.#o.direct) {
          this.#error(m.rid, ErrorCode.DIRECT_UNAVAILABLE, 'this Burrow has no direct path');
          return;
        }
        this.#o.direct.offer(m.rid, m.sdp);
        return;
      case 'direct-candidate':
        this.#o.direct?.candidate(m.candidate, m.mid);
        return;
      case 'network-policy-get':
      case 'network-policy-set': {
        const port = this.#o.direct;
        const policy = port?.policy() ?? null;
        if (!port || policy === null) {
          this.#error(m.rid, ErrorCode.UNKNOWN_MESSAGE, `${m.type} is not supported by this Burrow`);
          return;
        }
        const now = m.type === 'network-policy-set' ? port.setPolicy(m.policy) : policy;
        this.#send({ type: 'network-policy', rid: m.rid, policy: now });
        return;
      }
      case 'forget-me': {
        const rid = m.rid;
        // Answer first: revocation closes this connection at once.
        this.#send({ type: 'ok', rid });
        this.#o.forgetMe().catch((e: Error) => this.#o.log(`remote: forget-me failed: ${e.message}`));
        return;
      }
      default:
        return this.#settingsMessage(m);
    }
  }

  /** push-status, push-test, settings-get/set, watch-rules-get/set (protocol R-B-PUSH-*, R-SET-*). */
  #settingsMessage(m: ClientMessage & { type: string }): void {
    const port = this.#o.settings;
    const rid = 'rid' in m && typeof m.rid === 'number' ? m.rid : null;
    if (port === undefined || rid === null) {
      this.#error(rid, ErrorCode.UNKNOWN_MESSAGE, `${m.type} is not supported by this Burrow`);
      return;
    }
    const fail = (e: Error) =>
      this.#error(rid, e instanceof RangeError ? ErrorCode.BAD_REQUEST : ErrorCode.INTERNAL, e.message);
    try {
      switch (m.type) {
        case 'push-status':
          port
            .pushStatus(this.#o.deliveryId)
            .then((r) => this.#send({ type: 'push-status', rid, ...r }), fail);
          return;
        case 'push-test':
          port.pushTest().then((r) => this.#send({ type: 'push-test-result', rid, ...r }), fail);
          return;
        case 'settings-get':
          this.#send({ type: 'settings', rid, settings: port.settings() });
          return;
        case 'settings-set':
          this.#send({
            type: 'settings',
            rid,
            settings: port.updateSettings((m as { patch: object }).patch),
          });
          return;
        case 'watch-rules-get':
          this.#send({ type: 'watch-rules', rid, rules: [...port.watchRules()] });
          return;
        case 'watch-rules-set':
          this.#send({
            type: 'watch-rules',
            rid,
            rules: [...port.setWatchRules((m as { rules: readonly string[] }).rules)],
          });
          return;
      }
      this.#error(rid, ErrorCode.UNKNOWN_MESSAGE, `${m.type} is not supported by this Burrow`);
    } catch (e) {
      fail(e as Error);
    }
  }

  #attachedOr(session: string, rid: number | null, fn: (a: Attached) => void) {
    const a = this.#attached.get(session);
    if (!a) {
      this.#error(rid, ErrorCode.NOT_ATTACHED, 'attach to the session first');
      return;
    }
    fn(a);
  }

  #attach(session: Session, m: Extract<ClientMessage, { type: 'attach' }>) {
    const { rid, cols, rows, resumeFrom, scrollbackFrom } = m;
    const previous = this.#attached.get(session.id);
    const entry: { value: Attached | null } = { value: null };
    const pending: PendingAnswer = { rid, size: null };
    const sink: ViewerSink = {
      id: `${this.#o.viewerId}.${session.id}.${++this.#attachCount}`,
      kind: 'remote',
      identity: this.#o.viewerIdentity ?? this.#o.viewerId,
      // One output frame per Noise message: never fragmented.
      maxOutputBytes: MAX_OUTPUT_EVENT_BYTES,
      // The session asks before each delivery; a high answer is when it may mark this viewer behind, so the
      // drain watch starts here — not only after an output send (the shared link can fill from elsewhere).
      backlog: () => {
        const bytes = this.#backlog();
        if (bytes >= DRAINED_BELOW_BYTES) this.#watchDrain();
        return bytes;
      },
      deliver: (event) => this.#deliver(session.id, event, pending),
      close: () => {
        if (this.#attached.get(session.id) === entry.value) this.#attached.delete(session.id);
      },
    };
    // R-ATTACH-1: an attach on a connection that has the session starts over. The new attachment comes first,
    // so this viewer never stops being attached in between, and it is a resume either way: the same viewer
    // going on does not take the size (R-SIZE-6).
    const attachment = session.attach(sink, {
      size: { cols, rows },
      ...(resumeFrom !== undefined ? { resumeFrom } : {}),
      ...(scrollbackFrom !== undefined ? { refillFrom: scrollbackFrom } : {}),
      claim: resumeFrom === undefined && previous === undefined,
    });
    entry.value = { attachment };
    this.#attached.set(session.id, entry.value);
    previous?.attachment.detach();
    // Resumed with nothing to catch up: the session delivered nothing and will send no snapshot.
    if (pending.rid !== null && resumeFrom !== undefined && resumeFrom === session.info().offset) {
      const info = session.info();
      this.#answerResumed(pending, session.id, resumeFrom, info.cols, info.rows);
    }
  }

  /** `resumed`, then the size state the session gave meanwhile (R-SIZE-8). */
  #answerResumed(pending: PendingAnswer, session: string, offset: number, cols: number, rows: number) {
    if (pending.rid === null) return;
    this.#send({ type: 'resumed', rid: pending.rid, session, offset, cols, rows });
    pending.rid = null;
    if (pending.size !== null) this.#send(pending.size);
    pending.size = null;
  }

  #deliver(sessionId: string, event: ViewerEvent, pending: PendingAnswer) {
    switch (event.type) {
      case 'snapshot': {
        const s = event.snapshot;
        // R-ATTACH-8: the lines this phone kept, in front of the screen (refill.ts); bounded with room for the
        // frame around the text body.
        const { data, firstLine } = refilledSnapshot(s, event.refill, MAX_SNAPSHOT_BYTES - 1024);
        const fields = {
          session: sessionId,
          offset: s.offset,
          cols: s.cols,
          rows: s.rows,
          firstLine,
          hasOlder: firstLine > 0,
          data,
        };
        if (pending.rid !== null) {
          this.#send({ type: 'attached', rid: pending.rid, ...fields });
          pending.rid = null;
        } else {
          this.#send({ type: 'resync', ...fields });
        }
        return;
      }
      case 'output':
        if (pending.rid !== null) {
          const info = this.#o.registry.get(sessionId).info();
          this.#answerResumed(pending, sessionId, event.offset, info.cols, info.rows);
        }
        this.#send({ type: 'output', session: sessionId, offset: event.offset, data: event.data });
        this.#watchDrain();
        return;
      case 'size': {
        const { type: _, ...size } = event;
        const message = { type: 'size-changed' as const, session: sessionId, ...size };
        // A resume's size state comes before its answer: it goes right after it instead.
        if (pending.rid !== null) pending.size = message;
        else this.#send(message);
        return;
      }
      case 'exit':
        this.#scheduleDiff();
        return;
    }
  }

  /**
   * A session stops feeding a viewer whose backlog is over MAX_VIEWER_BACKLOG_BYTES and waits for `drained()`
   * (viewer.ts): once the link has drained, tell every attachment so they resume or resync. Armed by every
   * backlog query at or over DRAINED_BELOW_BYTES (see the sink): a viewer marked behind before any output of
   * its own was sent — another phone's snapshot filled the shared link — was otherwise never woken.
   */
  #watchDrain(): void {
    if (this.#drainPoll || this.#backlog() < DRAINED_BELOW_BYTES) return;
    this.#drainPoll = setInterval(() => {
      if (this.#backlog() < DRAINED_BELOW_BYTES) this.#drainedNow();
    }, DRAIN_POLL_MS);
    this.#drainPoll.unref();
  }

  #drainedNow(): void {
    if (this.#drainPoll) clearInterval(this.#drainPoll);
    this.#drainPoll = null;
    for (const a of this.#attached.values()) a.attachment.drained();
  }

  /**
   * Bytes queued toward this phone: what the relay link still holds (shared) plus what this phone has not
   * acknowledged (R-FLOW-1) — the relay queues a non-reading phone's frames without telling anyone.
   */
  #backlog(): number {
    return this.#o.backlog() + (this.#sentBytes - this.#ackedBytes);
  }

  #entries(): SessionEntry[] {
    return this.#o.registry
      .list()
      .map((info) => directoryEntry(info, this.#o.attention.publicState(info.id)));
  }

  #sendDirectory() {
    const entries = this.#entries();
    this.#sent = new Map(entries.map((e) => [e.id, sentEntry(e)]));
    this.#send({ type: 'directory', sessions: entries });
  }

  /**
   * The registry's list changed (a session created, renamed, exited or removed): send the difference now.
   * Creating a session announces no activity the subscription above hears in time — its `spawn` fires while
   * the session is still being added — so without this a session made with `burrow new` that prints nothing
   * reached the phone only with the next periodic refresh, up to DIRECTORY_REFRESH_MS later (issue 17 item 7).
   */
  listChanged(): void {
    this.#diffDirectory();
  }

  /**
   * Sends upserts for changed entries and removes for vanished ones. Event-driven calls (every keystroke and
   * output chunk fires one) ignore `lastActivityAt` / `outputOffset` alone: sending an upsert for them would
   * put an extra encrypt-and-send in front of every echoed keystroke. The periodic refresh
   * (`withActivity`) carries that drift to the phone at most DIRECTORY_REFRESH_MS late.
   */
  /**
   * One diff for everything that changed in this turn of the event loop (a spawn's activity fires before the
   * session is listed; an exit fires several changes at once), after the I/O that caused it.
   */
  #scheduleDiff() {
    if (this.#diffSoon || this.#closed) return;
    this.#diffSoon = setImmediate(() => {
      this.#diffSoon = null;
      this.#diffDirectory();
    });
  }

  #diffDirectory(withActivity = false) {
    if (this.#closed || !this.#helloed) return;
    const next = new Map<string, SentEntry>();
    for (const e of this.#entries()) {
      const now = sentEntry(e);
      const prev = this.#sent.get(e.id);
      const changed =
        prev === undefined || (withActivity ? prev.full !== now.full : prev.shape !== now.shape);
      if (changed) this.#send({ type: 'directory-upsert', entry: e });
      next.set(e.id, changed || prev === undefined ? now : prev);
    }
    for (const id of this.#sent.keys())
      if (!next.has(id)) this.#send({ type: 'directory-remove', session: id });
    this.#sent = next;
  }
}

interface SentEntry {
  readonly full: string;
  /** The entry without the fields that move on every byte of activity. */
  readonly shape: string;
}

function sentEntry(e: SessionEntry): SentEntry {
  return { full: JSON.stringify(e), shape: JSON.stringify({ ...e, lastActivityAt: 0, outputOffset: 0 }) };
}

/** R-C-RESUME-1: which error a failed resume is on the wire. */
function resumeErrorCode(e: Error): ErrorCode {
  if (e instanceof NotFoundError) return ErrorCode.UNKNOWN_SESSION;
  if (e instanceof ConflictError) return ErrorCode.CONFLICT;
  return ErrorCode.SPAWN_FAILED;
}
