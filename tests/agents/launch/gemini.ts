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
 * - Ready: its input box draws before its config has initialized, and only the header ("Gemini CLI v…", in
 *   `MainContent`, which renders nothing until `isConfigInitialized`) says it has. A line entered before that
 *   is queued ("Initializing... Prompts will be queued."), and in CI a queued line reached the model cut short
 *   ("Please crea" for "Please create approved.txt", though the whole line had shown in the box before Enter);
 *   so the ready screen is the header above the input box.
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
    readyScreen: /Gemini CLI v\d[\s\S]*Type your message/,
    permissionScreen: /Allow execution of/,
    allowKeys: '\r',
    resumeLatestArgv: [o.bin, '--resume', 'latest'],
    apiKey,
  };
}
