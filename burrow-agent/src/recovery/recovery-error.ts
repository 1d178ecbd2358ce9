/** A resume that cannot be done; nothing was started and the session is listed as before. Its message says why. */
export class RecoveryError extends Error {
  override readonly name = 'RecoveryError';
}
