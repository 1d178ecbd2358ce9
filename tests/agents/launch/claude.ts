/**
 * Claude Code 2.1.197 (a native binary; config in CLAUDE_CONFIG_DIR) against the fake Anthropic Messages API.
 *
 * - ANTHROPIC_BASE_URL + ANTHROPIC_API_KEY: the API and a key (the model stays Claude Code's default name; the
 *   fake answers any). A key from the environment is used without the
 *   "Do you want to use this API key?" question only when its last 20 characters are listed in
 *   `.claude.json` `customApiKeyResponses.approved` (what answering "yes" once stores).
 * - `.claude.json`: `hasCompletedOnboarding` + `lastOnboardingVersion` skip the theme picker, login and the
 *   connectivity check to api.anthropic.com; `projects[<cwd>].hasTrustDialogAccepted` answers the folder-trust
 *   dialog.
 * - DISABLE_AUTOUPDATER, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: no updater, telemetry, error reporting or
 *   feature-flag fetches (none of which reach anything here, and each would wait on a timeout).
 * - Notifications: none configured by default (`preferredNotifChannel` unset = "auto", which picks nothing
 *   in a terminal it does not recognise). The notify variant writes `settings.json`
 *   `{ "preferredNotifChannel": "iterm2" }` — OSC 9, what `burrow setup claude` writes.
 */
import { type AgentLaunch, baseEnv, fakeKey, join, json, type LaunchOptions } from './launch-spec.js';

export function claudeLaunch(o: LaunchOptions): AgentLaunch {
  const configDir = join(o.home, '.claude');
  const apiKey = fakeKey('sk-ant-api03-burrow-fake-');
  const state = {
    hasCompletedOnboarding: true,
    lastOnboardingVersion: '2.1.197',
    theme: 'dark',
    numStartups: 1,
    customApiKeyResponses: { approved: [apiKey.slice(-20)], rejected: [] },
    projects: {
      [o.workDir]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true, allowedTools: [] },
    },
  };
  const files: Record<string, string> = { [join(configDir, '.claude.json')]: json(state) };
  if (o.notify === true) files[join(configDir, 'settings.json')] = json({ preferredNotifChannel: 'iterm2' });
  return {
    agent: 'claude',
    argv: [o.bin],
    env: {
      ...baseEnv(o.home),
      CLAUDE_CONFIG_DIR: configDir,
      ANTHROPIC_BASE_URL: o.apiUrl,
      ANTHROPIC_API_KEY: apiKey,
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    },
    cwd: o.workDir,
    files,
    readyScreen: /\? for shortcuts/,
    permissionScreen: /Do you want to proceed\?/,
    allowKeys: '\r',
    resumeLatestArgv: [o.bin, '--continue'],
    apiKey,
  };
}
