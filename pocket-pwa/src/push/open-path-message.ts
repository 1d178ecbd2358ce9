/** The message type a notification click posts to an open Pocket window (shared by worker and page). */
export const OPEN_PATH_MESSAGE = 'pocket-open-path';
