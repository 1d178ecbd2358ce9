/**
 * The WATCHING rule set (alert-spec WATCHING Track → Rules): app-wide, keyed by commandWatchKey. A rule covers
 * a key it equals; a bare runner rule (`pnpm`) covers every `<runner> <script>` key of that runner.
 */
import { commandWatchKey, MAX_WATCH_KEY_CHARS } from './watch-key.js';

/** Most rules kept; a longer saved list keeps its first entries. */
export const MAX_WATCH_RULES = 256;

/**
 * The coding agents watched out of the box (alert-spec: seed an absent rule set with DEFAULT_WATCHED_COMMANDS).
 * These are the CLIs that work for minutes, then sit quiet waiting for their owner.
 */
export const DEFAULT_WATCHED_COMMANDS: readonly string[] = Object.freeze([
  'claude',
  'codex',
  'gemini',
  'aider',
  'opencode',
  'amp',
  'cursor-agent',
  'goose',
  'qwen',
  'copilot',
  'crush',
  'droid',
  'auggie',
  'cline',
  'kiro-cli',
  'kimi',
]);

/** A rule is valid exactly when it is its own watch key, so no rule can exist that no command could match. */
export function isValidWatchRule(rule: unknown): rule is string {
  return (
    typeof rule === 'string' &&
    rule.length > 0 &&
    rule.length <= MAX_WATCH_KEY_CHARS &&
    commandWatchKey(rule) === rule
  );
}

/**
 * Reads a saved rule list: absent (undefined) seeds the defaults; a saved list is kept, empty included,
 * invalid entries and duplicates dropped; anything else malformed falls back to empty.
 */
export function normalizeWatchRules(saved: unknown): readonly string[] {
  if (saved === undefined) return DEFAULT_WATCHED_COMMANDS;
  if (!Array.isArray(saved)) return [];
  const out: string[] = [];
  const seen = new Set<string>();
  for (const rule of saved) {
    if (out.length >= MAX_WATCH_RULES) break;
    if (isValidWatchRule(rule) && !seen.has(rule)) {
      seen.add(rule);
      out.push(rule);
    }
  }
  return out;
}

/** The one matcher: the rule covering `key`, or null. Exact rules win over a bare runner rule. */
export function watchRuleFor(rules: Iterable<string>, key: string | null): string | null {
  if (key === null) return null;
  const space = key.indexOf(' ');
  const runner = space === -1 ? null : key.slice(0, space);
  let runnerRule: string | null = null;
  for (const rule of rules) {
    if (rule === key) return rule;
    if (runner !== null && rule === runner) runnerRule = rule;
  }
  return runnerRule;
}

/** A rule edit: adding an invalid rule is a RangeError, so the CLI and Pocket can report it. */
export function addWatchRule(rules: readonly string[], rule: string): readonly string[] {
  if (!isValidWatchRule(rule))
    throw new RangeError(`not a valid watch rule: ${JSON.stringify(String(rule).slice(0, 40))}`);
  if (rules.includes(rule)) return rules;
  if (rules.length >= MAX_WATCH_RULES) throw new RangeError(`at most ${MAX_WATCH_RULES} watch rules`);
  return [...rules, rule];
}

export function removeWatchRule(rules: readonly string[], rule: string): readonly string[] {
  return rules.filter((r) => r !== rule);
}
