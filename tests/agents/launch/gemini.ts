/**
 * Gemini CLI 0.61.0 (Node; settings in ~/.gemini) against the fake Gemini API.
 *
 * - GEMINI_API_KEY + GOOGLE_GEMINI_BASE_URL: the key and the API's base URL (@google/genai appends
 *   /v1beta/models/<model>:streamGenerateContent).
 * - settings.json `security.auth.selectedType = "gemini-api-key"`: no auth dialog.
 * - trustedFolders.json `{ "<cwd>": "TRUST_FOLDER" }`: answers the folder-trust dialog
 *   (`security.folderTrust.enabled` defaults to true).
 * - `general.enableAutoUpdate` / `enableAutoUpdateNotification` false, `privacy.usageStatisticsEnabled` false,
 *   `telemetry.enabled` false, `ide.enabled` false + `ide.hasSeenNudge`: no updater, no usage statistics, no
 *   IDE-integration nudge.
 * - Notifications: off by default (`general.enableNotifications` false). The notify variant sets it true
 *   (`general.notificationMethod` stays "auto": OSC 777 outside iTerm2).
 */
import { type AgentLaunch, baseEnv, fakeKey, join, json, type LaunchOptions } from './launch-spec.js';

export function geminiLaunch(o: LaunchOptions): AgentLaunch {
  const dir = join(o.home, '.gemini');
  const apiKey = fakeKey('AIza-burrow-fake-');
  const settings = {
    security: { auth: { selectedType: 'gemini-api-key' } },
    general: {
      enableAutoUpdate: false,
      enableAutoUpdateNotification: false,
      ...(o.notify === true ? { enableNotifications: true } : {}),
    },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    ide: { enabled: false, hasSeenNudge: true },
  };
  return {
    agent: 'gemini',
    argv: [o.bin],
    env: { ...baseEnv(o.home), GEMINI_API_KEY: apiKey, GOOGLE_GEMINI_BASE_URL: o.apiUrl },
    cwd: o.workDir,
    files: {
      [join(dir, 'settings.json')]: json(settings),
      [join(dir, 'trustedFolders.json')]: json({ [o.workDir]: 'TRUST_FOLDER' }),
    },
    readyScreen: /Type your message/,
    permissionScreen: /Allow execution of/,
    allowKeys: '\r',
    resumeLatestArgv: [o.bin, '--resume', 'latest'],
    apiKey,
  };
}
