/**
 * tests/longest-first-sequencer.ts names files by project and path: a renamed or deleted file would silently
 * drop out of the order, so every entry must still name a file of that project.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { REPO_ROOT } from '../../relay-worker/test/harness.js';
import { EXPECTED_SECONDS } from '../longest-first-sequencer.js';

const PROJECTS = [
  'burrow-agent',
  'relay-worker',
  'integration',
  'agents',
  'integration-solo',
  'e2e-chromium',
  'e2e-firefox',
  'e2e-webkit',
];

it('every file the sequencer orders exists, under a project that runs it', () => {
  const wrong = Object.keys(EXPECTED_SECONDS).filter((key) => {
    const [project, path] = key.split(':') as [string, string];
    const underTests =
      ['integration', 'integration-solo', 'agents'].includes(project) || project.startsWith('e2e');
    return (
      !PROJECTS.includes(project) ||
      !existsSync(join(REPO_ROOT, path)) ||
      (underTests && !path.startsWith('tests/')) ||
      (project.startsWith('e2e') && !path.endsWith('.e2e.test.ts'))
    );
  });
  expect(wrong).toEqual([]);
});
