/**
 * Codex CLI's settings for `burrow setup codex` (issue 23): `[tui] notification_method = "osc9"` in
 * `$CODEX_HOME/config.toml` (else `~/.codex/config.toml`). By default Codex rings a bare BEL and reports OSC 7501
 * (which Burrow reads); with osc9 it writes OSC 9 with the request itself ("Approval requested: touch x") and
 * the turn's last message, which Burrow passes on word for word. Codex notifies only after the terminal says
 * it lost focus (CSI O), which Burrow sends whenever nobody is looking.
 *
 * The file is TOML the owner wrote, comments included: it is rewritten with toml-patch, which keeps comments,
 * whitespace and formatting, and the result is checked before anything is written — it must parse to exactly
 * the old settings plus the one value, and every line of the old file but the one that held the value must
 * still be there, in order. A file that fails either check is refused, with what to add by hand.
 */
import { join } from 'node:path';
import { parse, patch } from '@decimalturn/toml-patch';
import { SetupError } from './config-file.js';

export const CODEX_TABLE = 'tui';
export const CODEX_KEY = 'notification_method';
export const CODEX_VALUE = 'osc9';
const MANUAL = `add it yourself under [${CODEX_TABLE}]: ${CODEX_KEY} = "${CODEX_VALUE}"`;

/** `$CODEX_HOME/config.toml`, else `~/.codex/config.toml`. */
export function codexConfigPath(env: Readonly<Record<string, string | undefined>>, homedir: string): string {
  const codexHome = env.CODEX_HOME;
  if (typeof codexHome === 'string' && codexHome !== '') return join(codexHome, 'config.toml');
  if (homedir === '') throw new SetupError('cannot find Codex settings: neither CODEX_HOME nor HOME is set');
  return join(homedir, '.codex', 'config.toml');
}

type Table = Record<string, unknown>;

/** @throws SetupError naming the file when it is not TOML holding a table `tui` can live in. */
export function parseCodexConfig(path: string, text: string | null): Table {
  if (text === null || text.trim() === '') return {};
  let value: unknown;
  try {
    value = parse(text);
  } catch (err) {
    const why = (err as Error).message.replace(/\s+/g, ' ').trim();
    throw new SetupError(`${path} is not valid TOML (${why}); nothing was changed.`);
  }
  const tui = (value as Table)[CODEX_TABLE];
  if (tui !== undefined && (typeof tui !== 'object' || tui === null || Array.isArray(tui)))
    throw new SetupError(`${path}: ${CODEX_TABLE} is not a table; nothing was changed.`);
  return value as Table;
}

/** The current value of tui.notification_method (as TOML text), or null when unset. */
export function codexCurrent(config: Table): unknown {
  return (config[CODEX_TABLE] as Table | undefined)?.[CODEX_KEY];
}

/** Whether `tui.notifications` turns notifications off outright (then no method sends anything). */
export function codexNotificationsOff(config: Table): boolean {
  return (config[CODEX_TABLE] as Table | undefined)?.notifications === false;
}

/** Same data, compared structurally (TOML values: primitives, dates, arrays, tables). */
function sameData(a: unknown, b: unknown): boolean {
  return JSON.stringify(a, sortedKeys) === JSON.stringify(b, sortedKeys);
}

function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof Date)
    return value;
  return Object.fromEntries(Object.entries(value as Table).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
}

/** An inline `tui = { … }` table: the value is added inside that line. */
const INLINE_TUI = new RegExp(`^\\s*${CODEX_TABLE}\\s*=`);

/**
 * Every line of `before` appears in `after`, in order — but blank lines (layout), the line that held the key
 * and an inline `tui = { … }` line, which the value is written into. Data is checked separately.
 */
function linesKept(before: string, after: string): boolean {
  const kept = after.split(/\r?\n/);
  let at = 0;
  for (const line of before.split(/\r?\n/)) {
    if (line.trim() === '' || line.includes(CODEX_KEY) || INLINE_TUI.test(line)) continue;
    while (at < kept.length && kept[at] !== line) at++;
    if (at >= kept.length) return false;
    at++;
  }
  return true;
}

/**
 * The config text with tui.notification_method = "osc9", everything else as it was.
 *
 * @throws SetupError when the file cannot be rewritten faithfully; nothing is written then.
 */
export function withCodexNotifications(path: string, text: string | null): string {
  const config = parseCodexConfig(path, text);
  const wanted: Table = {
    ...config,
    [CODEX_TABLE]: { ...((config[CODEX_TABLE] as Table | undefined) ?? {}), [CODEX_KEY]: CODEX_VALUE },
  };
  const before = text ?? '';
  let after: string;
  try {
    after = patch(before, wanted);
  } catch (err) {
    throw new SetupError(
      `${path} could not be rewritten (${(err as Error).message}); nothing was changed: ${MANUAL}.`,
    );
  }
  let reread: unknown;
  try {
    reread = parse(after);
  } catch {
    reread = undefined;
  }
  if (!sameData(reread, wanted) || !linesKept(before, after)) {
    throw new SetupError(
      `${path} could not be rewritten without changing more than that one setting; nothing was changed: ${MANUAL}.`,
    );
  }
  return after.endsWith('\n') ? after : `${after}\n`;
}
