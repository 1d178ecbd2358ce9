/**
 * Messages between the daemon's thread and the screen worker (screen-worker.ts). Both ends are this process's
 * own code, so messages are typed, not validated. Every message about one model carries its `id`; the worker
 * handles them in order, so a snapshot or resize lands exactly after the bytes written before it.
 */
import type { HistoryPage } from './screen-host.js';
import type { ScreenSnapshot } from './screen-model.js';

export type ToScreenWorker =
  /** `offset`: the stream offset the model starts at (0 at spawn; more when reopened after a worker restart). */
  | {
      readonly op: 'open';
      readonly id: number;
      readonly cols: number;
      readonly rows: number;
      readonly offset: number;
    }
  /** PTY bytes (the buffer is transferred); the worker answers `parsed` once xterm has parsed them. */
  | { readonly op: 'write'; readonly id: number; readonly data: Uint8Array }
  | { readonly op: 'resize'; readonly id: number; readonly cols: number; readonly rows: number }
  | { readonly op: 'snapshot'; readonly id: number; readonly req: number }
  | {
      readonly op: 'history';
      readonly id: number;
      readonly req: number;
      readonly before: number;
      readonly count: number;
    }
  | { readonly op: 'hibernate'; readonly id: number; readonly req: number }
  | { readonly op: 'close'; readonly id: number };

export type FromScreenWorker =
  /**
   * Every byte up to stream offset `offset` is parsed; `buffer` is the batch's own buffer, transferred back
   * for reuse (nothing in the worker refers to it any more).
   */
  | { readonly op: 'parsed'; readonly id: number; readonly offset: number; readonly buffer: ArrayBuffer }
  | { readonly op: 'snapshot'; readonly req: number; readonly snapshot: ScreenSnapshot }
  | { readonly op: 'history'; readonly req: number; readonly page: HistoryPage }
  | { readonly op: 'hibernated'; readonly req: number; readonly parked: boolean }
  | { readonly op: 'failed'; readonly req: number; readonly name: string; readonly message: string }
  /** Something went wrong outside any request (a parser throw); the worker goes on. */
  | { readonly op: 'log'; readonly message: string };
