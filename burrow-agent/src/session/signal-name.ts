import { constants as osConstants } from 'node:os';

/**
 * The name of a signal number on this system ("SIGTERM"), or null for none or an unknown number. Its own module
 * so the CLI can name a session's signal without loading the attention engine.
 */
export function signalName(signal: number | null): string | null {
  if (signal === null) return null;
  for (const [name, n] of Object.entries(osConstants.signals)) if (n === signal) return name;
  return null;
}
