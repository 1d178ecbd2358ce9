/**
 * The four pinned agent CLIs in their default notification config, each in a real PTY against the fake model
 * API: the approval scenario end to end, and what each writes at its permission prompt and turn end (the facts
 * issue 23 builds on; tests/agents/README.md). Body: agents-smoke.ts.
 */
import { smokeSuite } from './agents-smoke.js';

smokeSuite('default', {
  // Nothing but its title at the prompt and turn end.
  claude: { promptOsc: [], promptBel: false, turnEndOsc: [], turnEndBel: false, promptTitles: [] },
  // BEL + OSC 7501 blocked/done (it was told focus is out), and a blinking "Action Required" title.
  codex: {
    promptOsc: [/^7501;state=blocked:app=codex:kind=permission$/],
    promptBel: true,
    turnEndOsc: [/^7501;state=done:app=codex$/],
    turnEndBel: true,
    promptTitles: [/^\[ ! \] Action Required \| Please create approved\.txt \| /],
  },
  // Nothing but its title: "✋  Action Required (dir)".
  gemini: {
    promptOsc: [],
    promptBel: false,
    turnEndOsc: [],
    turnEndBel: false,
    promptTitles: [/^✋ {2}Action Required \(/],
  },
  // Nothing at all; at start it asks for kitty's OSC 99 notification support and iTerm2's capabilities.
  opencode: {
    promptOsc: [],
    promptBel: false,
    turnEndOsc: [],
    turnEndBel: false,
    promptTitles: [],
    startupOsc: [/^99;i=[^:;]+:p=\?;$/, /^1337;Capabilities$/],
  },
});
