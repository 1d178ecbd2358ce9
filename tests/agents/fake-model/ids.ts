/** Ids in the shapes the real APIs use (prefix + random), unique per server so histories never collide. */
import { randomBytes } from 'node:crypto';

export function fakeId(prefix: string): string {
  return `${prefix}${randomBytes(12).toString('hex')}`;
}

/** A rough token count (4 characters a token) for usage fields: agents show it, none relies on its accuracy. */
export function roughTokens(value: unknown): number {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? '');
  return Math.max(1, Math.ceil(text.length / 4));
}
