/**
 * The engine's view projected onto the wire's public state (alert-spec Public State, protocol
 * session-entry.ts): protocol names for notification sources, '' for a missing title or body, text bounded
 * to the protocol's limits, and episode ids made unique across daemon restarts.
 */
import {
  MAX_COMMAND_CHARS,
  MAX_NOTIFICATION_BODY_CHARS,
  MAX_NOTIFICATION_TITLE_CHARS,
  MAX_TITLE_CHARS,
  MAX_WATCH_KEY_CHARS,
  type Notification,
} from '@burrow/protocol';
import type { ActivityNotification, SessionAlertView } from '../attention/index.js';
import type { PublicAttentionState } from '../remote/attention-port.js';

/** What an unknown session reads as: nothing to show, nothing ringing. */
export const QUIET_PUBLIC_STATE: PublicAttentionState = Object.freeze({
  status: 'NOTHING_TO_SHOW',
  ringing: false,
  ringingSince: null,
  episodeId: null,
  todo: false,
  notification: null,
  awaited: false,
  title: '',
  command: null,
  watchKey: null,
});

// C0, DEL, C1 and bidi / zero-width formatting: the protocol refuses display text carrying them.
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/gu;

function bounded(text: string | null, max: number): string {
  if (text === null) return '';
  return Array.from(text.replace(FORBIDDEN, ' ')).slice(0, max).join('');
}

/** Between a detail's own body and what the screen said (protocol R-DIR-7). */
export const CONTEXT_SEPARATOR = ' — ';

/**
 * The notification as the directory (and the push body) shows it: what the screen said when it rang follows
 * the detail's own body (issue 23: every ring says something useful; protocol R-DIR-7).
 */
export function publicNotification(n: ActivityNotification | null): Notification | null {
  if (n === null) return null;
  const context = n.context ?? null;
  const body =
    context === null ? n.body : n.body === null ? context : `${n.body}${CONTEXT_SEPARATOR}${context}`;
  return {
    source: n.source === 'exit' ? 'command-exit' : n.source,
    title: bounded(n.title, MAX_NOTIFICATION_TITLE_CHARS),
    body: bounded(body, MAX_NOTIFICATION_BODY_CHARS),
  };
}

/**
 * The public episode id: a tag drawn once per daemon run, then the engine's counter. The engine counts from 1
 * again after a restart; the tag keeps a phone from mistaking a new episode for one it already dismissed.
 */
export function publicEpisodeId(bootTag: string, episodeId: number): string {
  return `${bootTag}-${episodeId}`;
}

function boundedOrNull(text: string | null, max: number): string | null {
  const out = bounded(text, max).trim();
  return out === '' ? null : out;
}

export function toPublicState(view: SessionAlertView, bootTag: string, title = ''): PublicAttentionState {
  return {
    status: view.status,
    ringing: view.ringing,
    ringingSince: view.ringingSince === null ? null : Math.max(0, Math.round(view.ringingSince)),
    episodeId: view.episodeId === null ? null : publicEpisodeId(bootTag, view.episodeId),
    todo: view.todo,
    notification: publicNotification(view.notification),
    awaited: view.awaited,
    title: bounded(title, MAX_TITLE_CHARS),
    command: boundedOrNull(view.command, MAX_COMMAND_CHARS),
    watchKey: boundedOrNull(view.watchKey, MAX_WATCH_KEY_CHARS),
  };
}
