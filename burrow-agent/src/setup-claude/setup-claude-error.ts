/** Why `burrow setup claude` changed nothing; the message says what is wrong and what to do. */
export class SetupClaudeError extends Error {
  override readonly name = 'SetupClaudeError';
}
