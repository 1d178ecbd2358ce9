import { describe, expect, it } from 'vitest';
import { commandWatchKey } from './watch-key.js';
import {
  addWatchRule,
  DEFAULT_WATCHED_COMMANDS,
  isValidWatchRule,
  MAX_WATCH_RULES,
  normalizeWatchRules,
  removeWatchRule,
  watchRuleFor,
} from './watch-rules.js';

describe('watchRuleFor', () => {
  it('covers a key it equals', () => {
    expect(watchRuleFor(['claude'], 'claude')).toBe('claude');
    expect(watchRuleFor(['claude'], 'codex')).toBeNull();
    expect(watchRuleFor(['claude'], null)).toBeNull();
  });

  it('a bare runner rule covers every <runner> <script> key of that runner', () => {
    expect(watchRuleFor(['pnpm'], 'pnpm dev')).toBe('pnpm');
    expect(watchRuleFor(['pnpm'], 'npm dev')).toBeNull();
    expect(watchRuleFor(['pnpm dev'], 'pnpm')).toBeNull();
  });

  it('prefers the exact rule over the bare runner rule', () => {
    expect(watchRuleFor(['pnpm', 'pnpm dev'], 'pnpm dev')).toBe('pnpm dev');
  });
});

describe('watched defaults', () => {
  it('seeds an absent rule set with the coding agents', () => {
    expect(normalizeWatchRules(undefined)).toEqual(DEFAULT_WATCHED_COMMANDS);
    for (const agent of ['claude', 'codex', 'gemini', 'aider'])
      expect(DEFAULT_WATCHED_COMMANDS).toContain(agent);
  });

  it('every default is a valid rule that its own command keys on', () => {
    for (const rule of DEFAULT_WATCHED_COMMANDS) {
      expect(isValidWatchRule(rule)).toBe(true);
      expect(watchRuleFor(DEFAULT_WATCHED_COMMANDS, commandWatchKey(`npx ${rule} --flag`))).toBe(rule);
    }
  });

  it('preserves saved lists, including empty lists', () => {
    expect(normalizeWatchRules([])).toEqual([]);
    expect(normalizeWatchRules(['make', 'pnpm dev'])).toEqual(['make', 'pnpm dev']);
  });

  it('malformed saved data falls back to empty', () => {
    expect(normalizeWatchRules(null)).toEqual([]);
    expect(normalizeWatchRules('claude')).toEqual([]);
    expect(normalizeWatchRules({ 0: 'claude' })).toEqual([]);
  });

  it('drops invalid entries and duplicates, and bounds the list', () => {
    expect(normalizeWatchRules(['make', 'make', 7, '', 'sudo make', '  x', 'a'.repeat(200), 'ok'])).toEqual([
      'make',
      'ok',
    ]);
    const many = Array.from({ length: MAX_WATCH_RULES + 50 }, (_, i) => `cmd${i}`);
    expect(normalizeWatchRules(many)).toHaveLength(MAX_WATCH_RULES);
  });
});

describe('rule edits', () => {
  it('adds a valid rule once and refuses an invalid one with a RangeError', () => {
    expect(addWatchRule(['make'], 'make')).toEqual(['make']);
    expect(addWatchRule(['make'], 'cargo')).toEqual(['make', 'cargo']);
    expect(() => addWatchRule([], 'cd x && make')).toThrow(RangeError);
    expect(() => addWatchRule([], '')).toThrow(RangeError);
  });

  it('refuses a rule past the bound', () => {
    const full = Array.from({ length: MAX_WATCH_RULES }, (_, i) => `cmd${i}`);
    expect(() => addWatchRule(full, 'one-more')).toThrow(RangeError);
  });

  it('removes a rule', () => {
    expect(removeWatchRule(['make', 'cargo'], 'make')).toEqual(['cargo']);
  });
});
