/**
 * `npm run fuzz`: the long fuzz run (issue 8, "Hostile input"). Runs every target (or one) for a number of
 * seconds each from a seed and prints a table: target, runs, seconds, findings, heap start→end. Exits 1 when
 * any target has a finding, so it can gate a release.
 *
 *   npm run fuzz -- --seconds 60                      every target, 60 s each
 *   npm run fuzz -- --target terminal-parser --seed 7 --runs 100000
 *   npm run fuzz -- --target push-envelope --seed <s> --path <p>   replay one finding
 *   npm run fuzz -- --json                            the reports as JSON (one array) instead of the table
 */
import { parseArgs } from 'node:util';
import { type FuzzReport, figureLine, mib, runTarget } from './fuzz-runner.js';
import { FUZZ_TARGETS } from './targets/index.js';

const DEFAULT_SECONDS = 10;
const DEFAULT_SEED = 0xb0_77_0f;

const HELP = `usage: npm run fuzz -- [options]
  --seconds N   seconds per target (default ${DEFAULT_SECONDS})
  --runs N      cases per target instead of a time budget
  --target T    only this target (repeatable); one of:
${FUZZ_TARGETS.map((t) => `                  ${t.name.padEnd(20)} ${t.about}`).join('\n')}
  --seed S      base seed (default ${DEFAULT_SEED}); every batch derives its own from it
  --path P      with --seed and one --target: replay the single case of a finding
  --json        print the reports as JSON
  --help        this text`;

function positive(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new RangeError(`--${name} must be a positive number`);
  return n;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string' },
      runs: { type: 'string' },
      target: { type: 'string', multiple: true },
      seed: { type: 'string' },
      path: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const names = values.target ?? [];
  const unknown = names.filter((n) => !FUZZ_TARGETS.some((t) => t.name === n));
  if (unknown.length > 0) throw new RangeError(`unknown target ${unknown.join(', ')} (see --help)`);
  const targets = names.length === 0 ? FUZZ_TARGETS : FUZZ_TARGETS.filter((t) => names.includes(t.name));
  if (values.path !== undefined && (targets.length !== 1 || values.seed === undefined))
    throw new RangeError('--path needs --seed and exactly one --target');
  const seed = values.seed === undefined ? DEFAULT_SEED : Number.parseInt(values.seed, 10);
  if (!Number.isSafeInteger(seed)) throw new RangeError('--seed must be an integer');
  const runs = positive('runs', values.runs);
  const seconds = runs === undefined ? (positive('seconds', values.seconds) ?? DEFAULT_SECONDS) : undefined;

  const reports: FuzzReport[] = [];
  for (const target of targets) {
    const report = await runTarget(target, {
      seed,
      ...(runs !== undefined ? { runs } : {}),
      ...(seconds !== undefined ? { seconds } : {}),
      ...(values.path !== undefined ? { path: values.path } : {}),
    });
    reports.push(report);
    if (!values.json) console.error(figureLine(report));
  }
  if (values.json) console.log(JSON.stringify(reports, null, 2));
  else printTable(reports);
  return reports.some((r) => r.findings.length + r.findingsDropped > 0) ? 1 : 0;
}

function printTable(reports: readonly FuzzReport[]): void {
  const rows = [
    ['target', 'runs', 'seconds', 'findings', 'heap MiB start→end (peak)'],
    ...reports.map((r) => [
      r.target,
      String(r.runs),
      r.seconds.toFixed(1),
      String(r.findings.length + r.findingsDropped),
      `${mib(r.heapStart)}→${mib(r.heapEnd)} (${mib(r.heapPeak)})`,
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  for (const row of rows)
    console.log(
      row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  '),
    );
  for (const r of reports) {
    for (const f of r.findings) {
      // A finding from a whole-run check (after a batch) has no case to replay: rerun the target.
      const replay =
        f.path === ''
          ? `npm run fuzz -- --target ${r.target} --seed ${r.seed} (a check after batch, not one case)`
          : `npm run fuzz -- --target ${r.target} --seed ${f.seed} --path ${f.path}`;
      console.log(`\n${r.target}: ${f.error}\n  replay: ${replay}\n  input: ${f.input}`);
    }
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 2;
  },
);
