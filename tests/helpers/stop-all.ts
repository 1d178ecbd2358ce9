/**
 * Teardown that stops every part even when one of them fails to stop: a throw in the first `afterAll` step
 * (a browser whose profile would not delete) once left that file's relay — workerd — running for an hour at a
 * third of a core, under every test that ran after it.
 */
export async function stopAll(...steps: ReadonlyArray<(() => Promise<unknown>) | undefined>): Promise<void> {
  const errors: unknown[] = [];
  for (const step of steps) {
    try {
      await step?.();
    } catch (error) {
      errors.push(error);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, `${errors.length} parts failed to stop`);
}
