/**
 * The agents that have notification settings of their own, with them turned on (Claude Code
 * `preferredNotifChannel: "iterm2"`, Codex `[tui] notification_method = "osc9"`, Gemini CLI
 * `general.enableNotifications`): the approval scenario end to end, and the notification each writes with the
 * request's text. opencode has no such setting (agents-default.test.ts covers it). Body: agents-smoke.ts.
 */
import { smokeSuite } from './agents-smoke.js';

smokeSuite('notify', {
  // OSC 9 some seconds (~6) after the prompt shows; nothing at turn end (it says "waiting for your input" only
  // after a minute idle).
  claude: {
    promptOsc: [/^9;Claude needs your permission/],
    promptBel: false,
    turnEndOsc: [],
    turnEndBel: false,
    promptTitles: [],
  },
  // OSC 9 with the command instead of the BEL; OSC 9 with the last message at turn end; OSC 7501 as before.
  codex: {
    promptOsc: [
      /^9;Approval requested: touch approved\.txt$/,
      /^7501;state=blocked:app=codex:kind=permission$/,
    ],
    promptBel: false,
    turnEndOsc: [/^9;Done: approved\.txt is there\.$/, /^7501;state=done:app=codex$/],
    turnEndBel: false,
    promptTitles: [/^\[ ! \] Action Required/],
  },
  // OSC 777 notify at the prompt (a generic text, not the command) and at the end of the run.
  gemini: {
    promptOsc: [/^777;notify;Gemini CLI needs your attention;Approval required/],
    promptBel: false,
    turnEndOsc: [/^777;notify;Gemini CLI session complete;/],
    turnEndBel: false,
    promptTitles: [/^✋ {2}Action Required \(/],
  },
});
