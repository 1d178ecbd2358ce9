export type { NotifySource, ProgressState, TerminalEvent } from './events.js';
export * from './limits.js';
export { TerminalParser, type TerminalParserOptions } from './parser.js';
