/**
 * `systemctl --user` for tests, where no user systemd runs: an executable named `systemctl` (put its directory
 * first on PATH) forwards its arguments over a Unix socket to this process, which does what the user manager
 * would with the one unit `burrow install-service` writes, running it with ServiceSupervisor
 * (service-supervisor.ts). So `burrow install-service` / `restart-service` / `uninstall-service` run their
 * real code paths, with their real arguments, against a manager that really starts and stops the daemon.
 *
 * Semantics followed (systemctl(1), systemd.unit(5)): the manager keeps the unit as loaded at the last
 * `daemon-reload` (loading a unit it has never seen on first use); `restart` stops the running process with
 * KillSignal= and starts the loaded unit, warning as systemctl does when the file changed since it was loaded;
 * `enable --now` starts it if it is not running; `disable --now` stops it; `is-active` prints the state and
 * exits 3 when inactive. Any other verb fails, so a change in what burrow asks cannot go unexercised.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import {
  parseSystemdUnit,
  ServiceSupervisor,
  type SupervisorOptions,
  type SystemdService,
} from './service-supervisor.js';

interface Reply {
  code: number;
  stdout: string;
  stderr: string;
}

/** Bytes of arguments one call may send (burrow sends a handful of words). */
const MAX_REQUEST_BYTES = 64 * 1024;

/** The client: CommonJS (no extension), node by absolute path, the socket path baked in. */
function clientScript(socket: string): string {
  return `#!${process.execPath}
// systemctl stand-in (tests/helpers/systemctl-stand-in.ts): forwards argv to the test process.
const sock = require('node:net').connect(${JSON.stringify(socket)});
let data = '';
sock.on('data', (d) => { data += d; });
sock.on('end', () => {
  const r = JSON.parse(data);
  process.stdout.write(r.stdout);
  process.stderr.write(r.stderr);
  process.exitCode = r.code;
});
sock.on('error', (e) => { process.stderr.write('systemctl stand-in: ' + e.message + '\\n'); process.exitCode = 1; });
sock.end(JSON.stringify(process.argv.slice(2)));
`;
}

export class SystemctlStandIn {
  /** Every call's arguments, in order. */
  readonly calls: string[][] = [];
  #loaded: { text: string; unit: SystemdService } | null = null;
  #sup: ServiceSupervisor | null = null;
  #enabled = false;
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly dir: string,
    readonly server: Server,
    readonly unitPath: string,
    readonly base: NodeJS.ProcessEnv,
    readonly options: SupervisorOptions,
  ) {}

  /**
   * `unitPath`: where burrow writes its unit (XDG_CONFIG_HOME/systemd/user/burrow.service); `base`: the user
   * manager's environment for the service; `options.wrap` runs ExecStart= under another command.
   */
  static async start(
    unitPath: string,
    base: NodeJS.ProcessEnv,
    options: SupervisorOptions = {},
  ): Promise<SystemctlStandIn> {
    const dir = mkdtempSync(join(tmpdir(), 'burrow-systemctl-'));
    const socket = join(dir, 'manager.sock');
    const server = createServer({ allowHalfOpen: true });
    const standIn = new SystemctlStandIn(dir, server, unitPath, base, options);
    server.on('connection', (conn) => {
      let request = '';
      conn.on('data', (d) => {
        request += d.toString();
        if (request.length > MAX_REQUEST_BYTES) conn.destroy();
      });
      conn.on('end', () => {
        // One verb at a time, as the manager's job queue would.
        standIn.#queue = standIn.#queue.then(async () => {
          let reply: Reply;
          try {
            reply = await standIn.#handle(JSON.parse(request) as string[]);
          } catch (err) {
            reply = { code: 1, stdout: '', stderr: `${(err as Error).message}\n` };
          }
          conn.end(JSON.stringify(reply));
        });
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socket, resolve);
    });
    writeFileSync(join(dir, 'systemctl'), clientScript(socket));
    chmodSync(join(dir, 'systemctl'), 0o755);
    return standIn;
  }

  /** Put first on PATH. */
  get binDir(): string {
    return this.dir;
  }

  /** The running service, or null. */
  get supervisor(): ServiceSupervisor | null {
    return this.#sup;
  }

  get enabled(): boolean {
    return this.#enabled;
  }

  #load(): SystemdService {
    if (!existsSync(this.unitPath)) throw new Error(`Unit ${basename(this.unitPath)} not found.`);
    const text = readFileSync(this.unitPath, 'utf8');
    this.#loaded = { text, unit: parseSystemdUnit(text) };
    return this.#loaded.unit;
  }

  async #startService(): Promise<void> {
    const unit = this.#loaded?.unit ?? this.#load();
    this.#sup = await ServiceSupervisor.startUnit(unit, this.base, this.options);
  }

  async #stopService(): Promise<void> {
    const sup = this.#sup;
    this.#sup = null;
    if (sup !== null) await sup.stop();
  }

  async #handle(args: string[]): Promise<Reply> {
    this.calls.push(args);
    const ok = (stdout = '', stderr = ''): Reply => ({ code: 0, stdout, stderr });
    if (args[0] !== '--user')
      return { code: 1, stdout: '', stderr: 'the stand-in is the user manager only\n' };
    const [verb, ...rest] = args.slice(1);
    const name = basename(this.unitPath);
    const unitArg = rest.filter((a) => !a.startsWith('-'));
    if (verb !== 'daemon-reload' && (unitArg.length !== 1 || unitArg[0] !== name))
      return { code: 1, stdout: '', stderr: `the stand-in manages only ${name}, not ${unitArg.join(' ')}\n` };
    switch (verb) {
      case 'daemon-reload':
        if (existsSync(this.unitPath)) this.#load();
        else this.#loaded = null;
        return ok();
      case 'enable':
        this.#load();
        this.#enabled = true;
        if (rest.includes('--now') && this.#sup === null) await this.#startService();
        return ok();
      case 'disable':
        this.#enabled = false;
        if (rest.includes('--now')) await this.#stopService();
        return ok();
      case 'restart': {
        const changed =
          this.#loaded !== null &&
          existsSync(this.unitPath) &&
          readFileSync(this.unitPath, 'utf8') !== this.#loaded.text;
        await this.#stopService();
        await this.#startService();
        return ok(
          '',
          changed
            ? `Warning: The unit file, source configuration file or drop-ins of ${name} changed on disk. Run 'systemctl --user daemon-reload' to reload units.\n`
            : '',
        );
      }
      case 'is-active':
        return this.#sup === null ? { code: 3, stdout: 'inactive\n', stderr: '' } : ok('active\n');
      default:
        return {
          code: 1,
          stdout: '',
          stderr: `the stand-in does not implement systemctl ${args.join(' ')}\n`,
        };
    }
  }

  /** Stops the service and the manager. */
  async close(): Promise<void> {
    await this.#queue;
    await this.#stopService();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
