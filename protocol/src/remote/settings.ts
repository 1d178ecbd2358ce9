/**
 * Alert delivery settings and WATCHING rules as they travel (alert-spec "Alarm settings", "WATCHING Track").
 * [SPEC: R-SET-*]
 *
 * The wire accepts any value in its type's range; the Burrow normalizes (clamps) on write, as the spec requires,
 * and answers with the whole normalized blob, so the phone always shows what is in force.
 */
import * as v from 'valibot';
import { displayText, intIn } from './fields.js';
import { MAX_SETTING_MS, MAX_WATCH_KEY_CHARS, MAX_WATCH_RULES } from './limits.js';

const durationMs = intIn(0, MAX_SETTING_MS, 'R-SET-1');

export const alertSettingsSchema = v.strictObject({
  /** The presence window: a viewer is present while it had input this recently. */
  inactivityTimeoutMs: durationMs,
  deferAlertsUntilQuiet: v.boolean(),
  pushEnabled: v.boolean(),
  /** How long after an episode starts its push is due. */
  pushDelayMs: durationMs,
});
export type AlertSettings = v.InferOutput<typeof alertSettingsSchema>;

/** R-SET-2: a `settings-set` names at least one field; the ones it omits stay as they are. */
export const alertSettingsPatchSchema = v.pipe(
  v.partial(alertSettingsSchema),
  v.check((p) => Object.keys(p).length > 0, 'R-SET-2: a settings patch names at least one field'),
);
export type AlertSettingsPatch = v.InferOutput<typeof alertSettingsPatchSchema>;

/** R-SET-3: watch rules are distinct watch keys (see `commandWatchKey`), at most MAX_WATCH_RULES. */
export const watchRulesSchema = v.pipe(
  v.array(displayText(MAX_WATCH_KEY_CHARS, 1)),
  v.maxLength(MAX_WATCH_RULES, `R-SET-3: at most ${MAX_WATCH_RULES} watch rules`),
  v.check((list) => new Set(list).size === list.length, 'R-SET-3: watch rules are distinct'),
);
