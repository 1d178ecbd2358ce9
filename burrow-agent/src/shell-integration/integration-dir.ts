/**
 * Where the shipped bash / zsh / fish scripts live: `burrow-agent/shell-integration/`, two levels above this
 * module both as source (`src/shell-integration/`) and compiled (`dist/shell-integration/`), so one relative
 * URL serves tests and the installed daemon alike.
 */
import { fileURLToPath } from 'node:url';

/** The scripts directory relative to a module in `src/shell-integration/` or `dist/shell-integration/`. */
export function integrationDirFrom(moduleUrl: string): string {
  return fileURLToPath(new URL('../../shell-integration/', moduleUrl));
}

/** The scripts directory for this build of the agent. */
export function defaultIntegrationDir(): string {
  return integrationDirFrom(import.meta.url);
}
