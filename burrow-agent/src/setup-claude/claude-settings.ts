/**
 * Claude Code's user settings file and the one key Burrow sets in it (reference: winmux ADR "Terminal
 * notifications"). Claude Code only notifies by itself in Ghostty, kitty and iTerm2; elsewhere it stays
 * silent unless `preferredNotifChannel` names a channel. Burrow sets `iterm2`: OSC 9 carries the message text,
 * which Burrow's parser reports as a `notify` event (src/terminal/osc-dispatch.ts), where `terminal_bell`
 * would give a bare bell with no words for the push.
 *
 * The file is read only if it is plain JSON: a file with comments or trailing commas would lose them when
 * rewritten, so it is refused with a message saying what to do, and nothing is written.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SetupClaudeError } from './setup-claude-error.js';

export const NOTIF_CHANNEL_KEY = 'preferredNotifChannel';
/** OSC 9 notifications ("iTerm2" style): the message reaches Burrow, and through it the phone. */
export const BURROW_NOTIF_CHANNEL = 'iterm2';
/** A settings file larger than this is not one a person wrote; it is refused rather than parsed. */
export const SETTINGS_MAX_BYTES = 1024 * 1024;

/** Where Claude Code keeps its user settings: `$CLAUDE_CONFIG_DIR/settings.json`, else `~/.claude/settings.json`. */
export function claudeSettingsPath(
  env: Readonly<Record<string, string | undefined>>,
  homedir: string,
): string {
  const configDir = env.CLAUDE_CONFIG_DIR;
  if (typeof configDir === 'string' && configDir !== '') return join(configDir, 'settings.json');
  if (typeof homedir !== 'string' || homedir === '') {
    throw new SetupClaudeError('cannot find Claude Code settings: neither CLAUDE_CONFIG_DIR nor HOME is set');
  }
  return join(homedir, '.claude', 'settings.json');
}

export interface SettingsFile {
  readonly path: string;
  /** The file's text as read, or null when there is no file yet. */
  readonly text: string | null;
  /** The parsed settings ({} for a missing or blank file). */
  readonly settings: Record<string, unknown>;
  /** Permission bits to give the rewritten file. */
  readonly mode: number;
}

/** New settings files are the user's own: owner read/write. */
const NEW_FILE_MODE = 0o600;

/**
 * Parses settings text that must be plain JSON holding an object.
 *
 * @throws SetupClaudeError naming the file when it is not.
 */
export function parsePlainSettings(path: string, text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    throw new SetupClaudeError(
      `${path} is not plain JSON (${detail}). Comments and trailing commas would be lost if Burrow rewrote it, ` +
        `so nothing was changed: remove them, or add "${NOTIF_CHANNEL_KEY}": "${BURROW_NOTIF_CHANNEL}" yourself.`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SetupClaudeError(`${path} does not hold a JSON object; nothing was changed.`);
  }
  return value as Record<string, unknown>;
}

/** Reads the settings file, fail-closed: only a missing file counts as empty. */
export function readSettingsFile(path: string, statMode: (path: string) => number | null): SettingsFile {
  const mode = statMode(path);
  if (mode === null) return { path, text: null, settings: {}, mode: NEW_FILE_MODE };
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw new SetupClaudeError(`cannot read ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (bytes.length > SETTINGS_MAX_BYTES) {
    throw new SetupClaudeError(`${path} is larger than ${SETTINGS_MAX_BYTES} bytes; nothing was changed.`);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new SetupClaudeError(`${path} is not UTF-8 text; nothing was changed.`);
  }
  return { path, text, settings: parsePlainSettings(path, text), mode };
}

/** The settings text Burrow writes: the same keys in the same order, the channel set, 2-space JSON. */
export function withNotifChannel(settings: Record<string, unknown>): string {
  return `${JSON.stringify({ ...settings, [NOTIF_CHANNEL_KEY]: BURROW_NOTIF_CHANNEL }, null, 2)}\n`;
}
