/**
 * Gemini CLI's settings for `burrow setup gemini` (issue 23): `general.enableNotifications: true` in its user
 * settings, `$GEMINI_CLI_HOME/.gemini/settings.json` (else `~/.gemini/settings.json`; Gemini reads its home from
 * GEMINI_CLI_HOME when set). By default Gemini writes nothing but its title; with notifications on it writes
 * OSC 777 "Gemini CLI needs your attention" with the request ("Approval required | …"), and at the end of a
 * session.
 *
 * Gemini reads the file as JSON with comments. It is rewritten with jsonc-parser's edit (the editor library of
 * VS Code's settings), which changes only the text of that one value and keeps comments and layout; the result
 * must parse to the old settings plus the value, or nothing is written. A file with syntax errors is refused.
 * A system settings file (GEMINI_CLI_SYSTEM_SETTINGS_PATH) or a project's .gemini/settings.json can still
 * override it; `burrow setup gemini` says so.
 */
import { join } from 'node:path';
import { applyEdits, modify, type ParseError, parse, printParseErrorCode } from 'jsonc-parser';
import { SetupError } from './config-file.js';

export const GEMINI_PATH = ['general', 'enableNotifications'] as const;
const MANUAL = 'add it yourself: "general": { "enableNotifications": true }';

/** `$GEMINI_CLI_HOME/.gemini/settings.json`, else `~/.gemini/settings.json`. */
export function geminiSettingsPath(
  env: Readonly<Record<string, string | undefined>>,
  homedir: string,
): string {
  const geminiHome = env.GEMINI_CLI_HOME;
  const home = typeof geminiHome === 'string' && geminiHome !== '' ? geminiHome : homedir;
  if (home === '')
    throw new SetupError('cannot find Gemini settings: neither GEMINI_CLI_HOME nor HOME is set');
  return join(home, '.gemini', 'settings.json');
}

type Settings = Record<string, unknown>;

/** @throws SetupError naming the file when it is not JSON (comments allowed) holding an object. */
export function parseGeminiSettings(path: string, text: string | null): Settings {
  if (text === null || text.trim() === '') return {};
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: false, disallowComments: false });
  if (errors.length > 0) {
    const first = errors[0]!;
    throw new SetupError(
      `${path} is not valid JSON (${printParseErrorCode(first.error)} at offset ${first.offset}); ` +
        `nothing was changed: ${MANUAL}.`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new SetupError(`${path} does not hold a JSON object; nothing was changed.`);
  const general = (value as Settings).general;
  if (general !== undefined && (typeof general !== 'object' || general === null || Array.isArray(general)))
    throw new SetupError(`${path}: "general" is not an object; nothing was changed: ${MANUAL}.`);
  return value as Settings;
}

export function geminiCurrent(settings: Settings): unknown {
  return (settings.general as Settings | undefined)?.enableNotifications;
}

/** Indentation of the file's first indented line (two spaces for a new file). */
function indentOf(text: string): { insertSpaces: boolean; tabSize: number } {
  const m = /\n([ \t]+)\S/.exec(text);
  if (m === null) return { insertSpaces: true, tabSize: 2 };
  return m[1]!.startsWith('\t')
    ? { insertSpaces: false, tabSize: 1 }
    : { insertSpaces: true, tabSize: m[1]!.length };
}

/**
 * The settings text with general.enableNotifications = true, everything else as it was.
 *
 * @throws SetupError when the file cannot be rewritten faithfully; nothing is written then.
 */
export function withGeminiNotifications(path: string, text: string | null): string {
  const settings = parseGeminiSettings(path, text);
  const before = text === null || text.trim() === '' ? '{}\n' : text;
  const edits = modify(before, [...GEMINI_PATH], true, {
    formattingOptions: { ...indentOf(before), eol: before.includes('\r\n') ? '\r\n' : '\n' },
  });
  const after = applyEdits(before, edits);
  const wanted = {
    ...settings,
    general: { ...((settings.general as Settings | undefined) ?? {}), enableNotifications: true },
  };
  let reread: unknown;
  try {
    reread = parseGeminiSettings(path, after);
  } catch {
    reread = undefined;
  }
  if (!sameUnordered(reread, wanted)) {
    throw new SetupError(`${path} could not be rewritten faithfully; nothing was changed: ${MANUAL}.`);
  }
  return after.endsWith('\n') ? after : `${after}\n`;
}

function sameUnordered(a: unknown, b: unknown): boolean {
  const sort = (_k: string, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Settings).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : v;
  return JSON.stringify(a, sort) === JSON.stringify(b, sort);
}
