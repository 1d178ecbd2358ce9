/**
 * The fake model API on its own, for exploring an agent by hand:
 *
 *   npx tsx tests/agents/fake-model/serve.ts [--log FILE]
 *
 * prints the base URL, then one line per request (method, path, status, what the model answered); with
 * --log, each recorded request as a JSON line (bodies included, secrets redacted). Ctrl-C stops it.
 */
import { appendFileSync } from 'node:fs';
import { approvalScenario } from './scenario.js';
import { FakeModelServer } from './server.js';

const logIndex = process.argv.indexOf('--log');
const logFile = logIndex >= 0 ? process.argv[logIndex + 1] : undefined;
const api = await FakeModelServer.start(approvalScenario());
console.log(api.url);
let seen = 0;
setInterval(() => {
  for (const r of api.requests.slice(seen)) {
    const reply = r.reply === undefined ? '' : ` -> ${JSON.stringify(r.reply).slice(0, 120)}`;
    console.log(`${r.at}ms ${r.method} ${r.path} ${r.status}${r.mainLoop ? ' main' : ''}${reply}`);
    if (logFile !== undefined) appendFileSync(logFile, `${JSON.stringify(r)}\n`);
  }
  seen = api.requests.length;
  for (const e of api.takeErrors()) console.log(`ERROR ${e}`);
}, 200);
process.on('SIGINT', () => {
  void api.close().then(() => process.exit(0));
});
