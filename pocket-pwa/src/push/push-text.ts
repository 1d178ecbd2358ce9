/** The words Pocket shows for its push state and a test push's outcome (R-B-PUSH-2's five outcomes). */
import type { PushTestOutcome } from '@burrow/protocol';
import type { PushState } from './push-registration.js';

export function pushStateText(state: PushState | null): string {
  if (state === null) return 'Notifications: checking…';
  switch (state.kind) {
    case 'on':
      return 'Notifications: on';
    case 'off':
      if (state.reason === 'dismissed') return 'Notifications: off — the browser’s question was dismissed';
      if (state.reason === 'no-answer')
        return 'Notifications: off — the browser’s question got no answer (look for it by the address bar, or tap again)';
      return 'Notifications: off';
    case 'working':
      if (state.step === 'permission') return 'Notifications: answer the browser’s question to allow them…';
      if (state.step === 'subscribing') return 'Notifications: subscribing with the browser’s push service…';
      return 'Notifications: registering with your relay…';
    case 'blocked':
      return 'Notifications: blocked by the browser — allow them for this site in its settings';
    case 'unsupported':
      if (state.why === 'install-first')
        return 'Notifications: on iPhone and iPad, add Pocket to the Home Screen first (Share, then “Add to Home Screen”) and open it from there';
      if (state.why === 'too-old') return 'Notifications: need iOS 16.4 or later on this iPhone or iPad';
      return 'Notifications: not supported in this browser (on iPhone, add Pocket to the Home Screen first)';
    case 'failed':
      return `Notifications: could not be set up — ${state.message}`;
  }
}

export interface PushTestResult {
  readonly outcome: PushTestOutcome;
  readonly targets: number;
  readonly delivered: number;
}

export function pushTestText(r: PushTestResult): string {
  switch (r.outcome) {
    case 'no_devices':
      return 'Test push: this computer has no paired phone to send to.';
    case 'no_subscriptions':
      return 'Test push: no phone has notifications turned on, so nothing was sent.';
    case 'zero_delivered':
      return `Test push: sent to ${r.targets} phone${r.targets === 1 ? '' : 's'}, but none was delivered.`;
    case 'partial':
      return `Test push: delivered to ${r.delivered} of ${r.targets} phones.`;
    case 'delivered':
      return r.targets === 1 ? 'Test push: delivered.' : `Test push: delivered to all ${r.targets} phones.`;
  }
}
