/**
 * The phone of the running vitest project: the root config declares one e2e project per engine
 * (e2e-chromium, e2e-firefox, e2e-webkit), each providing `e2eEngine`. An e2e file calls `launchPhone()` and
 * runs in whichever engine its project names.
 */
import { inject } from 'vitest';
import type { EngineName } from './engine.js';
import { type LaunchOptions, Phone } from './phone.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The engine this project's e2e files run in. */
    e2eEngine: EngineName;
  }
}

/** The engine of the running vitest project; fails loudly outside one. */
export function e2eEngine(): EngineName {
  const engine = inject('e2eEngine');
  if (engine === undefined) throw new Error('run the browser e2e through an e2e-<engine> vitest project');
  return engine;
}

export function launchPhone(options: LaunchOptions = {}): Promise<Phone> {
  return Phone.launch(e2eEngine(), options);
}
