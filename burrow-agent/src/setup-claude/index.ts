export {
  BURROW_NOTIF_CHANNEL,
  claudeSettingsPath,
  NOTIF_CHANNEL_KEY,
  parsePlainSettings,
  SETTINGS_MAX_BYTES,
} from './claude-settings.js';
export { runSetupClaude, type SetupClaudeOptions, type SetupClaudeResult } from './setup-claude.js';
export { SetupClaudeError } from './setup-claude-error.js';
