import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';

/** Running the machine's tools (podman, debootstrap, openssl, nginx) and reporting their failures readably. */

export interface RunOptions {
  /** Written to the command's standard input, then closed. */
  input?: string | Buffer;
  /** A non-zero exit is returned rather than thrown. */
  allowFailure?: boolean;
  timeoutMs?: number;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Standard output and error are appended here as they come (long builds); the error message quotes their tail. */
  logFile?: string;
}

export interface RunResult {
  code: number;
  stdout: string;
  /** Standard output as bytes (pg_dump -Fc writes binary). */
  stdoutBytes: Buffer;
  stderr: string;
}

export class CommandError extends Error {
  readonly result: RunResult;

  constructor(message: string, result: RunResult) {
    super(message);
    this.result = result;
  }
}

const tail = (text: string, lines = 30) => text.trimEnd().split('\n').slice(-lines).join('\n');

export function run(command: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const log = options.logFile ? createWriteStream(options.logFile, { flags: 'a' }) : undefined;
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => {
      out.push(chunk);
      log?.write(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err.push(chunk);
      log?.write(chunk);
    });
    let timedOut = false;
    const timer = options.timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          child.kill('SIGKILL');
        }, options.timeoutMs)
      : undefined;
    child.on('error', (error) => {
      clearTimeout(timer);
      log?.end();
      reject(new Error(`${command}: ${error.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      log?.end();
      const stdoutBytes = Buffer.concat(out);
      const result: RunResult = { code: code ?? 128, stdout: stdoutBytes.toString('utf8'), stdoutBytes, stderr: Buffer.concat(err).toString('utf8') };
      if (result.code === 0 || (options.allowFailure && !timedOut)) {
        resolve(result);
        return;
      }
      const why = timedOut ? `timed out after ${options.timeoutMs} ms` : `exited with ${code ?? signal}`;
      const output = tail(`${result.stdout}\n${result.stderr}`);
      reject(new CommandError(`${command} ${args.join(' ')} ${why}${output ? `:\n${output}` : ''}${options.logFile ? `\n(full output: ${options.logFile})` : ''}`, result));
    });
    child.stdin.on('error', () => {}); // a command that exits without reading its input
    child.stdin.end(options.input);
  });
}

/** Whether `command` is on PATH. */
export async function have(command: string): Promise<boolean> {
  return (await run('sh', ['-c', `command -v ${command}`], { allowFailure: true })).code === 0;
}
