/**
 * JSON control messages: parse, validate against a direction's schema, and map valibot issues to
 * ProtocolError with the SPEC rule that failed. [SPEC: R-MSG-*]
 */
import * as v from 'valibot';
import { ErrorCode } from '../error-codes.js';
import { utf8Decode, utf8Encode } from './bytes.js';
import { ProtocolError } from './errors.js';
import { MAX_CONTROL_JSON_BYTES, MAX_RID } from './limits.js';

// biome-ignore lint/suspicious/noExplicitAny: any valibot schema
type AnySchema = v.GenericSchema<any, any>;

export interface ControlCodec<T> {
  readonly schema: AnySchema;
  /** Every `type` the schema knows. */
  readonly types: ReadonlySet<string>;
  /** Validates a parsed value and returns it typed (a fresh object). Throws ProtocolError. */
  validate(value: unknown): T;
}

const RULE_PREFIX = /^(R-[A-Z0-9]+(?:-[A-Z0-9]+)*): /;

function peekRid(value: unknown): number | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const rid = (value as { rid?: unknown }).rid;
  return typeof rid === 'number' && Number.isInteger(rid) && rid >= 1 && rid <= MAX_RID ? rid : undefined;
}

/** Builds the codec for one direction from its `v.variant('type', …)` schema. */
export function controlCodec<T>(
  schema: AnySchema & { options: readonly { entries: { type: unknown } }[] },
): ControlCodec<T> {
  const types = new Set(schema.options.map((o) => (o.entries.type as { literal: string }).literal));

  const validate = (value: unknown): T => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new ProtocolError('R-MSG-1', 'a control message is a JSON object');
    }
    const type = (value as { type?: unknown }).type;
    const rid = peekRid(value);
    if (typeof type !== 'string')
      throw new ProtocolError('R-MSG-1', 'a control message has a string type', { rid });
    if (!types.has(type)) {
      throw new ProtocolError('R-MSG-3', 'unknown message type', { code: ErrorCode.UNKNOWN_MESSAGE, rid });
    }
    const result = v.safeParse(schema, value, { abortEarly: true });
    if (result.success) return result.output as T;
    const issue = result.issues[0];
    const unknownField = issue.expected === 'never';
    // An unknown field's name is the peer's text: leave it out, as we leave out values.
    const keys = issue.path?.map((p: { key: unknown }) => String(p.key)) ?? [];
    const path = (unknownField ? keys.slice(0, -1) : keys).join('.');
    const match = RULE_PREFIX.exec(issue.message);
    // Built-in valibot messages quote the received value, which may be a secret: keep only our own wording.
    const rule = match?.[1] ?? 'R-MSG-2';
    const why = match
      ? issue.message.slice(match[0].length)
      : unknownField
        ? 'unknown field'
        : `expected ${issue.expected ?? 'a valid value'}`;
    throw new ProtocolError(rule, `${type}${path ? `.${path}` : ''}: ${why}`, { rid });
  };

  return { schema, types, validate };
}

function tooLarge(): ProtocolError {
  return new ProtocolError('R-FRAME-2', 'control JSON exceeds MAX_CONTROL_JSON_BYTES', {
    code: ErrorCode.PAYLOAD_TOO_LARGE,
  });
}

/** Parses the JSON part of a CONTROL or TEXT_BODY frame (R-FRAME-2). Throws ProtocolError. */
export function parseJson(json: Uint8Array): unknown {
  if (json.length > MAX_CONTROL_JSON_BYTES) throw tooLarge();
  const text = utf8Decode(json);
  if (text === null) throw new ProtocolError('R-FRAME-2', 'control JSON is not valid UTF-8');
  try {
    return JSON.parse(text);
  } catch {
    throw new ProtocolError('R-FRAME-2', 'control JSON does not parse');
  }
}

/** Serializes an already validated message (R-FRAME-2). Throws ProtocolError if it is over the bound. */
export function serializeJson(value: unknown): Uint8Array {
  const json = utf8Encode(JSON.stringify(value));
  if (json.length > MAX_CONTROL_JSON_BYTES) throw tooLarge();
  return json;
}
