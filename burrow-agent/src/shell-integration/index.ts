export * from './env-names.js';
export { defaultIntegrationDir, integrationDirFrom } from './integration-dir.js';
export {
  type LaunchEnv,
  type ShellLaunch,
  type ShellLaunchRequest,
  shellIntegrationLaunch,
} from './launch.js';
export { checkShellNonce, createShellNonce, NONCE_BYTES, NONCE_MAX_CHARS, NONCE_MIN_CHARS } from './nonce.js';
export { NONCE_FILE_TTL_MS, type NonceFile, writeNonceFile } from './nonce-file.js';
export { MAX_SESSION_COMMAND_CHARS, quoteShellWord, sessionCommandLine } from './session-command.js';
export {
  type IntegratedShell,
  interactiveFlags,
  isInteractiveShell,
  type ShellFlags,
  shellKindOf,
} from './shell-kind.js';
