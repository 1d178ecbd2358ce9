/**
 * Codex CLI 0.171.0 (a native binary; config in CODEX_HOME/config.toml) against the fake OpenAI Responses API.
 *
 * - `model_provider = "burrowfake"` with `[model_providers.burrowfake]` `base_url` (…/v1), `env_key` (the
 *   variable holding the key) and `wire_api = "responses"`: a custom provider needs no login.
 * - `[projects."<cwd>"] trust_level = "trusted"` pre-answers the trust question Codex asks on a first start
 *   in a git work tree; trusted (like a folder with no entry) means the defaults: `approval_policy =
 *   "on-request"` with the workspace-write sandbox. There `touch approved.txt` would run sandboxed without a
 *   question, so the fake model does what a real one does for a command it wants run as-is: it asks for
 *   `sandbox_permissions: "require_escalated"` with a `justification` (shell-tool.ts), and Codex asks the user.
 *   ("untrusted" would ask too, but Codex 0.171 then opens a "Folder access — Open restricted" screen first.)
 * - `check_for_update_on_startup = false`, `[analytics] enabled = false`: no update check, no analytics.
 * - `--no-daemon`: by default 0.171 copies its 425 MB binary into CODEX_HOME/packages and runs the session in
 *   a detached background app-server that outlives the terminal (and the test); --no-daemon runs it in the TUI
 *   process. The TUI draws and notifies the same either way.
 * - CODEX_HOME must not lie under the OS temp dir: Codex then refuses to create its helper aliases
 *   (codex-linux-sandbox), and sandboxed commands fail with "execvp codex-linux-sandbox".
 * - Notifications: the default (`tui.notification_method` "auto") writes BEL + OSC 7501 in a terminal it does
 *   not recognise, and only after the terminal reported focus lost (CSI O; it enables DECSET 1004). The notify
 *   variant sets `[tui] notification_method = "osc9"`.
 */
import { type AgentLaunch, baseEnv, fakeKey, join, type LaunchOptions } from './launch-spec.js';

/** Not BURROW_-named: a Burrow session's environment has no BURROW_* variables (issue 24.3, session-env.ts). */
const KEY_ENV = 'FAKE_MODEL_API_KEY';

/** A TOML basic string (config values here are paths and URLs: escape backslash and quote). */
function tomlString(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export function codexLaunch(o: LaunchOptions): AgentLaunch {
  const codexHome = join(o.home, '.codex');
  const apiKey = fakeKey('sk-burrow-fake-');
  const toml = [
    `model = ${tomlString(o.model)}`,
    'model_provider = "burrowfake"',
    'check_for_update_on_startup = false',
    '',
    '[model_providers.burrowfake]',
    'name = "Burrow fake model API"',
    `base_url = ${tomlString(`${o.apiUrl}/v1`)}`,
    `env_key = "${KEY_ENV}"`,
    'wire_api = "responses"',
    '',
    `[projects.${tomlString(o.workDir)}]`,
    'trust_level = "trusted"',
    '',
    '[analytics]',
    'enabled = false',
    ...(o.notify === true ? ['', '[tui]', 'notification_method = "osc9"'] : []),
    '',
  ].join('\n');
  return {
    agent: 'codex',
    argv: [o.bin, '--no-daemon'],
    env: { ...baseEnv(o.home), CODEX_HOME: codexHome, [KEY_ENV]: apiKey },
    cwd: o.workDir,
    files: { [join(codexHome, 'config.toml')]: toml },
    readyScreen: /Ask Codex to do anything/,
    permissionScreen: /Would you like to run the following command\?/,
    allowKeys: 'y',
    resumeLatestArgv: [o.bin, '--no-daemon', 'resume', '--last'],
    apiKey,
  };
}
