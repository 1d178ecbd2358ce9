/**
 * opencode 1.18.33 (a Bun binary; config in ~/.config/opencode) against the fake OpenAI Chat Completions API,
 * through the `@ai-sdk/openai-compatible` provider bundled in the binary (nothing is installed at run time).
 *
 * - opencode.json `provider.burrowfake` (`npm: "@ai-sdk/openai-compatible"`, `options.baseURL` …/v1,
 *   `options.apiKey` from the environment) and `model: "burrowfake/<model>"` (also `small_model`, which
 *   opencode uses for titles).
 * - `permission.bash = "ask"`: opencode 1.18 runs shell commands **without asking** by default (its
 *   permission rules default to allow); this is the documented way to make it ask. It is the one agent whose
 *   approval prompt needs a non-default setting — its notification config stays the default.
 * - `autoupdate: false`, `share: "disabled"`, OPENCODE_DISABLE_AUTOUPDATE, OPENCODE_DISABLE_MODELS_FETCH (no
 *   models.dev fetch: the binary's snapshot is used), OPENCODE_DISABLE_DEFAULT_PLUGINS (no npm install of
 *   default plugins at start), OPENCODE_DISABLE_LSP_DOWNLOAD.
 * - Notifications: opencode has no setting of its own. At start it asks the terminal for kitty's OSC 99
 *   notification support (`OSC 99;i=…:p=?`) and would use OSC 99 where the terminal answers; the notify
 *   variant is the same as the default.
 */
import { type AgentLaunch, baseEnv, fakeKey, join, json, type LaunchOptions } from './launch-spec.js';

/** Not BURROW_-named: a Burrow session's environment has no BURROW_* variables (issue 24.3, session-env.ts). */
const KEY_ENV = 'FAKE_MODEL_API_KEY';

export function opencodeLaunch(o: LaunchOptions): AgentLaunch {
  const apiKey = fakeKey('sk-burrow-fake-');
  const config = {
    $schema: 'https://opencode.ai/config.json',
    model: `burrowfake/${o.model}`,
    small_model: `burrowfake/${o.model}`,
    autoupdate: false,
    share: 'disabled',
    permission: { bash: 'ask' },
    provider: {
      burrowfake: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Burrow fake model API',
        options: { baseURL: `${o.apiUrl}/v1`, apiKey: `{env:${KEY_ENV}}` },
        models: { [o.model]: { name: 'Burrow fake model', tool_call: true } },
      },
    },
  };
  return {
    agent: 'opencode',
    argv: [o.bin],
    env: {
      ...baseEnv(o.home),
      [KEY_ENV]: apiKey,
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    },
    cwd: o.workDir,
    files: { [join(o.home, '.config', 'opencode', 'opencode.json')]: json(config) },
    readyScreen: /Ask anything/,
    permissionScreen: /Permission required|Allow once/i,
    allowKeys: '\r',
    resumeLatestArgv: [o.bin, '--continue'],
    apiKey,
  };
}
