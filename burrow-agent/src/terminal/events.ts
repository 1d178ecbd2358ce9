/**
 * What the streaming terminal parser reports, in stream order, for each PTY generation. The attention engine
 * consumes exactly these; the parser produces exactly these. All text fields are already sanitized
 * (`sanitizeText` from @burrow/crypto) and bounded at parse time.
 */

/** Which terminal report asked for attention (alert-spec: "terminal reports"). */
export type NotifySource = 'osc9' | 'osc777' | 'osc99';

/** OSC 7501 program states (program-status.ts). */
export type ProgramState = 'idle' | 'working' | 'done' | 'blocked' | 'error' | 'clear';
/** What an OSC 7501 `blocked` program waits for. */
export type BlockedKind = 'permission' | 'question' | 'auth';

/** OSC 9;4 progress states (Windows Terminal / ConEmu): 0 clear, 1 normal, 2 error, 3 indeterminate, 4 paused. */
export type ProgressState = 'clear' | 'normal' | 'error' | 'indeterminate' | 'paused';

export type TerminalEvent =
  /** A BEL outside any string sequence (a BEL that terminates an OSC is not a bell). */
  | { readonly type: 'bell' }
  /**
   * A desktop-notification report: OSC 9 message, OSC 777 notify, or a completed OSC 99 notification. `id` is
   * the OSC 99 notification's `i` key ('' when it had none; always '' for OSC 9 and 777), so a later
   * `notify-close` can withdraw it.
   */
  | {
      readonly type: 'notify';
      readonly source: NotifySource;
      readonly title: string;
      readonly body: string;
      readonly id?: string;
    }
  /** OSC 99 `p=close` with an `i` key: the program withdrew that notification (kitty desktop-notifications). */
  | { readonly type: 'notify-close'; readonly source: 'osc99'; readonly id: string }
  /**
   * OSC 7501: a program's own report of its state (program-status.ts). `id` '' is the root record; `title` and
   * `msg` are decoded, sanitized and bounded ('' when absent); `kind` only with `blocked`.
   */
  | {
      readonly type: 'program-status';
      readonly state: ProgramState;
      readonly id: string;
      readonly kind: BlockedKind | null;
      readonly app: string | null;
      readonly progress: number | null;
      readonly title: string;
      readonly msg: string;
    }
  /**
   * A program asked whether the terminal speaks a notification protocol: kitty's `OSC 99 ; i=<id>:p=? ;` or
   * `OSC 7501 ; ?`. Burrow answers (capability-replies.ts); `id` is the kitty query's `i` ('' without one).
   */
  | { readonly type: 'capability-query'; readonly protocol: 'osc99' | 'osc7501'; readonly id: string }
  /** OSC 9;4 progress; `value` is 0–100 when the state carries one. */
  | { readonly type: 'progress'; readonly state: ProgressState; readonly value: number | null }
  /** OSC 0 / 2 (window title) or OSC 1 (icon title). */
  | { readonly type: 'title'; readonly which: 'window' | 'icon' | 'both'; readonly title: string }
  /**
   * The working directory, as a decoded path: OSC 7 (file:// URL), OSC 9;9 (ConEmu), OSC 633;P;Cwd= (VS Code)
   * or OSC 1337;CurrentDir= (iTerm2).
   */
  | { readonly type: 'cwd'; readonly cwd: string }
  /** A signed OSC 633;A — the prompt starts (shell-integration.ts: only the session's script signs). */
  | { readonly type: 'prompt-start' }
  /** OSC 133;B / 633;B — the prompt ends, command input starts (a boundary only; anyone may print it). */
  | { readonly type: 'command-input-start' }
  /**
   * A signed OSC 633;C — the command starts executing. `commandLine` comes from the signed 633;E sent just
   * before it, else null. A multi-line command line keeps its line breaks as '\n' (each line sanitized on its
   * own, see `sanitizeCommandLine`): they separate commands, so the watch key needs them (issue 13).
   */
  | { readonly type: 'command-start'; readonly commandLine: string | null }
  /** A signed OSC 633;D — the command finished; exitCode null when the shell did not say. */
  | { readonly type: 'command-end'; readonly exitCode: number | null }
  /** OSC 633;P property other than Cwd (which is a `cwd` event), e.g. IsWindows=…; key and value sanitized. */
  | { readonly type: 'property'; readonly key: string; readonly value: string }
  /** DECSET / DECRST 1004: the program enabled or disabled focus reports (CSI I / CSI O). */
  | { readonly type: 'focus-reporting'; readonly enabled: boolean }
  /**
   * Printable output was seen (anything that is not part of a recognised control sequence); `bytes` counts it.
   * Events stay in byte order within a chunk (alert-spec Terminal reports: "apply a parse batch's reports and
   * command boundaries in stream order"): the printable bytes before an event are reported as one `output`
   * event just before it, and those after the chunk's last event as one at the end — never one per byte.
   */
  | { readonly type: 'output'; readonly bytes: number };
