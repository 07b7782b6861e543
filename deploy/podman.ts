import { run, type RunOptions, type RunResult } from './exec.ts';

/**
 * The container engine: Podman, as root. `runtime` is the OCI runtime
 * (`--runtime`): runc where the default one is refused (sandboxed or
 * nested hosts, docs/architecture.md#the-deployment-test), the engine's default otherwise.
 */
export class Podman {
  private readonly runtime: string | undefined;

  constructor(runtime: string | undefined) {
    this.runtime = runtime;
  }

  run(args: readonly string[], options?: RunOptions): Promise<RunResult> {
    return run('podman', [...(this.runtime ? ['--runtime', this.runtime] : []), ...args], options);
  }

  async imageExists(image: string): Promise<boolean> {
    return (await this.run(['image', 'exists', image], { allowFailure: true })).code === 0;
  }

  /** The image's size as `podman images` reports it (bytes, all layers). */
  async imageSize(image: string): Promise<number> {
    return Number((await this.run(['image', 'inspect', '--format', '{{.Size}}', image])).stdout.trim());
  }

  /** `podman exec` in a running container; `input` goes to the command's standard input. */
  exec(container: string, argv: readonly string[], options: RunOptions = {}): Promise<RunResult> {
    return this.run(['exec', ...(options.input === undefined ? [] : ['-i']), container, ...argv], options);
  }

  /**
   * Runs the container's health check once, as the engine's timer would
   * (Podman runs them from systemd timers; without systemd nothing does).
   */
  async healthy(container: string): Promise<boolean> {
    return (await this.run(['healthcheck', 'run', container], { allowFailure: true, timeoutMs: 60_000 })).code === 0;
  }

  async state(container: string): Promise<string | undefined> {
    const result = await this.run(['container', 'inspect', '--format', '{{.State.Status}}', container], { allowFailure: true });
    return result.code === 0 ? result.stdout.trim() : undefined;
  }

  async logs(container: string, lines = 60): Promise<string> {
    const result = await this.run(['logs', '--tail', String(lines), container], { allowFailure: true });
    return `${result.stdout}${result.stderr}`.trimEnd();
  }

  /** Names of the containers, volumes and networks carrying a label (what a previous run left). */
  async labelled(kind: 'container' | 'volume' | 'network', label: string): Promise<string[]> {
    const format = kind === 'container' ? '{{.Names}}' : '{{.Name}}';
    const args = kind === 'container' ? ['ps', '-a', '--filter', `label=${label}`, '--format', format] : [kind, 'ls', '--filter', `label=${label}`, '--format', format];
    const result = await this.run(args);
    return result.stdout.split('\n').map((l) => l.trim()).filter(Boolean);
  }
}
