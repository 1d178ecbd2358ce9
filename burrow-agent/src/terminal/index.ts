export { capabilityReply } from './capability-replies.js';
export type { BlockedKind, NotifySource, ProgramState, ProgressState, TerminalEvent } from './events.js';
export * from './limits.js';
export { TerminalParser, type TerminalParserOptions } from './parser.js';
