/**
 * A versioned JSON document in one atomic, owner-only, fail-closed file (standalone-host-spec: the in-memory
 * view advances only after the rename succeeds; only a missing file reads as empty).
 */
import * as v from 'valibot';
import { readFileFailClosed, StateFileError, writeFileAtomic } from './atomic-file.js';

export class JsonFileStore<S extends v.GenericSchema> {
  private current: v.InferOutput<S> | undefined;

  constructor(
    readonly path: string,
    private readonly schema: S,
    private readonly empty: () => v.InferOutput<S>,
  ) {}

  /** The stored value; `empty()` if the file does not exist; StateFileError if it cannot be trusted. */
  load(): v.InferOutput<S> {
    if (this.current !== undefined) return this.current;
    const bytes = readFileFailClosed(this.path);
    if (bytes === null) return this.empty();
    let json: unknown;
    try {
      json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch (cause) {
      throw new StateFileError(`${this.path} is not valid JSON; restore it from a backup or move it aside`, {
        cause,
      });
    }
    const parsed = v.safeParse(this.schema, json);
    if (!parsed.success) {
      const where = parsed.issues[0]?.path?.map((p) => String(p.key)).join('.') ?? '(root)';
      throw new StateFileError(
        `${this.path} does not match the expected format at ${where}: ${parsed.issues[0]?.message}; ` +
          'it may come from a newer Burrow — upgrade, or move it aside',
      );
    }
    this.current = parsed.output;
    return parsed.output;
  }

  /** Validates and writes `value`; the in-memory view changes only once the file is safely replaced. */
  save(value: v.InferOutput<S>): void {
    const parsed = v.safeParse(this.schema, value);
    if (!parsed.success) throw new TypeError(`refusing to save invalid state: ${parsed.issues[0]?.message}`);
    writeFileAtomic(this.path, `${JSON.stringify(parsed.output, null, 2)}\n`);
    this.current = parsed.output;
  }
}
