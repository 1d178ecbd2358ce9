import { act, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { BuildWarning, verdictText } from './BuildWarning.js';
import { BuildGuard } from './build-guard.js';

const FILES = [{ path: '/assets/term-1.js', sha256: 'A'.repeat(43) }];
const burrows = [
  { record: { burrowId: 'b1' }, name: 'studio' },
  { record: { burrowId: 'b2' }, name: 'laptop' },
];

describe('BuildWarning', () => {
  it('says nothing while checking or when every Burrow vouches for this build', async () => {
    const guard = new BuildGuard(async () => ({ kind: 'served', buildId: 'f'.repeat(64), files: FILES }));
    render(<BuildWarning guard={guard} burrows={burrows} />);
    expect(screen.queryByRole('alert')).toBeNull();
    await act(() => Promise.all([guard.report('b1', FILES), guard.report('b2', FILES)]));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('names each Burrow that does not vouch for it, why, and that typing is off', async () => {
    const guard = new BuildGuard(async () => ({
      kind: 'served',
      buildId: '3fa9c2e1'.padEnd(64, '0'),
      files: [{ path: '/assets/term-1.js', sha256: 'B'.repeat(43) }],
    }));
    render(<BuildWarning guard={guard} burrows={burrows} />);
    await act(() => Promise.all([guard.report('b1', FILES), guard.report('b2', null)]));
    const alert = screen.getByRole('alert', { name: 'Pocket build warning' });
    expect(alert.textContent).toContain('this copy of Pocket is not one your computer vouches for');
    expect(alert.textContent).toContain('Typing is turned off');
    expect(alert.textContent).toContain('studio: this copy (build 3fa9c2e1) is not the build it vouches for');
    expect(alert.textContent).toContain('changed: /assets/term-1.js');
    expect(alert.textContent).toContain('laptop: it vouches for no Pocket build');
  });

  it('names at most three paths and counts the rest', () => {
    const paths = ['/a', '/b', '/c', '/d', '/e'];
    expect(
      verdictText({ kind: 'differs', buildId: '0'.repeat(64), changed: paths, missing: [], extra: ['/x'] }),
    ).toBe(
      'this copy (build 00000000) is not the build it vouches for — changed: /a, /b, /c and 2 more; added: /x',
    );
  });
});
