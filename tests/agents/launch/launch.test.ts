/**
 * The launch configs: each agent pointed at the fake API with a fake key, in an environment built from
 * nothing, its notification settings untouched by default and on in the notify variant.
 */
import { describe, expect, it } from 'vitest';
import { AGENT_NAMES } from '../agent-clis.js';
import { LAUNCHERS } from './index.js';

const options = {
  bin: '/opt/agents/bin/x',
  apiUrl: 'http://127.0.0.1:4321',
  model: 'burrow-fake-model',
  workDir: '/work/project',
  home: '/home/agent-test',
};

/** Each agent's notification setting, as the file it lives in holds it. */
const NOTIFY_SETTING: Record<string, RegExp> = {
  claude: /"preferredNotifChannel": "iterm2"/,
  codex: /\[tui\]\nnotification_method = "osc9"/,
  gemini: /"enableNotifications": true/,
};

describe.each(AGENT_NAMES)('%s', (agent) => {
  it('starts from a built environment, never the runner’s secrets, and names the fake API', () => {
    process.env.ANTHROPIC_API_KEY = 'real-key-that-must-not-leak';
    process.env.OPENAI_API_KEY = 'real-key-that-must-not-leak';
    try {
      const launch = LAUNCHERS[agent](options);
      const all = JSON.stringify(launch);
      expect(all).not.toContain('real-key-that-must-not-leak');
      expect(all).toContain('127.0.0.1:4321');
      expect(launch.env.HOME).toBe(options.home);
      expect(launch.argv[0]).toBe(options.bin);
      expect(launch.cwd).toBe(options.workDir);
      expect(all).toContain(launch.apiKey);
    } finally {
      delete process.env.ANTHROPIC_API_KEY;
      delete process.env.OPENAI_API_KEY;
    }
  });

  it('uses a fresh CSPRNG key per launch', () => {
    expect(LAUNCHERS[agent](options).apiKey).not.toBe(LAUNCHERS[agent](options).apiKey);
  });

  it('leaves notifications at the default unless asked, and turns on only the agent’s own setting', () => {
    const files = (notify: boolean) =>
      Object.values(LAUNCHERS[agent]({ ...options, notify }).files).join('\n');
    const setting = NOTIFY_SETTING[agent];
    if (setting === undefined) {
      // opencode has no notification setting: both variants are the same config.
      expect(files(true).replace(/sk-burrow-fake-\w+/g, '')).toBe(
        files(false).replace(/sk-burrow-fake-\w+/g, ''),
      );
      return;
    }
    expect(files(false)).not.toMatch(setting);
    expect(files(false)).not.toMatch(/enableNotifications|notification_method|preferredNotifChannel/);
    expect(files(true)).toMatch(setting);
  });
});
