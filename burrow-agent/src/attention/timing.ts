/**
 * Every window the attention engine uses (alert-spec "cfg.alert"). The spec fixes the sums — the await grace
 * is busyCandidateGap + busyConfirmGap = 2000 ms, the settle is mightNeedAttention + needsAttentionConfirm =
 * 5000 ms, the deferral ceiling is 30 s — but not every addend; the split below is ours and documented here.
 */
export const ALERT_TIMING = Object.freeze({
  /** Output closer together than this continues one busy candidate (detector: NOTHING_TO_SHOW → MIGHT_BE_BUSY). */
  busyCandidateGap: 1000,
  /** How long a candidate must keep producing output before it is BUSY. */
  busyConfirmGap: 1000,
  /** Silence after BUSY before MIGHT_NEED_ATTENTION. */
  mightNeedAttention: 2000,
  /** Further silence before the detector reports a settle. */
  needsAttentionConfirm: 3000,
  /** Output this soon after user input is echo, ignored entirely (alert-spec Engagement). */
  echoWindow: 1000,
  /** Output this soon after a resize is redraw noise (alert-spec T_RESIZE_DEBOUNCE). */
  resizeDebounce: 1000,
  /** A deferred terminal notification rings by this long after the first one was deferred. */
  deferCeiling: 30_000,
});

/** "Did anything start?" — the detector's floor for reaching BUSY (alert-spec Await → Timing). */
export const AWAIT_GRACE_MS = ALERT_TIMING.busyCandidateGap + ALERT_TIMING.busyConfirmGap;
/** "Has it stopped?" — silence from the last output to a settle. */
export const SETTLE_MS = ALERT_TIMING.mightNeedAttention + ALERT_TIMING.needsAttentionConfirm;
/** The CLI's 1–86400 whole-second await range, host-enforced (alert-spec Await → Timing). */
export const MAX_AWAIT_TIMEOUT_MS = 86_400_000;
