/** Terminal size bounds accepted anywhere a size comes from outside (viewers, the CLI, the remote API). */
export const MIN_COLS = 2;
export const MAX_COLS = 1000;
export const MIN_ROWS = 1;
export const MAX_ROWS = 500;
