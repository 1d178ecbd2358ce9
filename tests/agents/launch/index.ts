/** Every agent's launch builder by name. */
import type { AgentName } from '../agent-clis.js';
import { claudeLaunch } from './claude.js';
import { codexLaunch } from './codex.js';
import { geminiLaunch } from './gemini.js';
import type { AgentLaunch, LaunchOptions } from './launch-spec.js';
import { opencodeLaunch } from './opencode.js';

export type { AgentLaunch, LaunchOptions } from './launch-spec.js';
export { writeLaunchFiles } from './launch-spec.js';

export const LAUNCHERS: Readonly<Record<AgentName, (o: LaunchOptions) => AgentLaunch>> = {
  claude: claudeLaunch,
  codex: codexLaunch,
  gemini: geminiLaunch,
  opencode: opencodeLaunch,
};
