import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parse as parseYaml } from 'yaml';
import type { Podman } from './podman.ts';

/**
 * docker-compose.yml, run on Podman as Docker Compose would run it: the same
 * services, commands, environment, named volumes, network (with its fixed
 * subnet, the node's -rpcallowip) and health checks, with `depends_on`
 * conditions waited for. Debian's podman-compose (1.0.3 in bookworm) cannot
 * run this file: it leaves `${VAR:-}` unexpanded, creates the network without
 * its subnet and does not wait for health. Keys this translation does not know
 * fail the run, so the file cannot grow a setting the test silently skips.
 */

interface ComposeHealthcheck {
  test?: string[] | string;
  interval?: string;
  timeout?: string;
  retries?: number;
  start_period?: string;
  disable?: boolean;
}

export interface ComposeService {
  image?: string;
  build?: { context?: string; target?: string; dockerfile?: string };
  restart?: string;
  logging?: { driver?: string; options?: Record<string, string> };
  environment?: Record<string, string | number | boolean | null> | string[];
  command?: string[] | string;
  volumes?: string[];
  networks?: string[];
  healthcheck?: ComposeHealthcheck;
  stop_grace_period?: string;
  init?: boolean;
  depends_on?: string[] | Record<string, { condition?: string }>;
  ports?: string[];
  read_only?: boolean;
  tmpfs?: string[] | string;
  user?: string;
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
  networks?: Record<string, { ipam?: { config?: Array<{ subnet?: string }> } } | null>;
}

const SERVICE_KEYS = new Set([
  'image', 'build', 'restart', 'logging', 'environment', 'command', 'volumes', 'networks', 'healthcheck',
  'stop_grace_period', 'init', 'depends_on', 'ports', 'read_only', 'tmpfs', 'user',
]);

/** KEY=VALUE lines of a Compose env file (.env): comments, blank lines, single or double quotes. */
export function parseEnvFile(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!match) continue;
    const raw = match[2]!.trim();
    values[match[1]!] = /^'.*'$|^".*"$/.test(raw) ? raw.slice(1, -1) : raw.replace(/\s+#.*$/, '');
  }
  return values;
}

/** Compose's interpolation (compose-file reference, "Interpolation"): $$, ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?error}, ${VAR?error}. */
export function interpolate(text: string, vars: Record<string, string | undefined>): string {
  return text.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}/g, (whole, name: string | undefined, colon: string, op: string, arg: string) => {
    if (whole === '$$') return '$';
    const value = vars[name!];
    const unset = value === undefined || (colon === ':' && value === '');
    if (op === '-') return unset ? arg : value;
    if (op === '?') {
      if (unset) throw new Error(`${name} is required: ${arg}`);
      return value;
    }
    return value ?? '';
  });
}

function interpolateDeep(value: unknown, vars: Record<string, string | undefined>): unknown {
  if (typeof value === 'string') return interpolate(value, vars);
  if (Array.isArray(value)) return value.map((v) => interpolateDeep(v, vars));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolateDeep(v, vars)]));
  return value;
}

/** The compose file with `vars` (the .env file) substituted into every value, as Compose does after parsing. */
export async function loadCompose(file: string, vars: Record<string, string | undefined>): Promise<ComposeFile> {
  const parsed = parseYaml(await readFile(file, 'utf8'), { merge: true }) as ComposeFile;
  const compose = interpolateDeep(parsed, vars) as ComposeFile;
  for (const [name, service] of Object.entries(compose.services)) {
    const unknown = Object.keys(service).filter((key) => !SERVICE_KEYS.has(key));
    if (unknown.length > 0) throw new Error(`docker-compose.yml: service ${name} uses ${unknown.join(', ')}, which deploy/compose-on-podman.ts does not translate yet`);
  }
  return compose;
}

/** Compose durations: 1m30s, 15m, 5s, 500ms. */
export function durationMs(text: string | undefined, fallbackMs: number): number {
  if (!text) return fallbackMs;
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)) {
    total += Number(amount) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[unit as 'ms' | 's' | 'm' | 'h'];
  }
  return total;
}

const asList = (value: string[] | string | undefined): string[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

export interface Instance {
  /** 1 for the service itself; 2, 3… for more instances of it (their named volumes get the same suffix: one DATA_DIR each). */
  index: number;
  /** Whether its ports are published (a second instance would clash with the first). */
  publish: boolean;
}

export class ComposeProject {
  readonly name: string;
  readonly compose: ComposeFile;
  readonly label: string;
  private readonly podman: Podman;
  /** The directory of the compose file: relative bind mounts start there. */
  private readonly projectDir: string;
  /** The image of each service that is built rather than pulled. */
  private readonly builtImages: Record<string, string>;
  /** Images to run instead of the ones the file names (an image registry this machine cannot reach). */
  private readonly imageOverrides: Record<string, string>;

  constructor(
    podman: Podman,
    name: string,
    compose: ComposeFile,
    projectDir: string,
    builtImages: Record<string, string>,
    imageOverrides: Record<string, string> = {},
  ) {
    this.podman = podman;
    this.name = name;
    this.compose = compose;
    this.projectDir = projectDir;
    this.builtImages = builtImages;
    this.imageOverrides = imageOverrides;
    this.label = `com.docker.compose.project=${name}`;
  }

  service(name: string): ComposeService {
    const service = this.compose.services[name];
    if (!service) throw new Error(`docker-compose.yml has no service ${name}`);
    return service;
  }

  container(service: string, index = 1): string {
    return `${this.name}-${service}-${index}`;
  }

  private volume(name: string, index: number): string {
    return `${this.name}_${name}${index > 1 ? `-${index}` : ''}`;
  }

  private network(name: string): string {
    return `${this.name}_${name}`;
  }

  /** Services in start order: each after what it depends on. */
  startOrder(): string[] {
    const order: string[] = [];
    const visit = (name: string, path: string[]) => {
      if (order.includes(name)) return;
      if (path.includes(name)) throw new Error(`depends_on cycle: ${[...path, name].join(' → ')}`);
      for (const dependency of Object.keys(this.dependencies(name))) visit(dependency, [...path, name]);
      order.push(name);
    };
    for (const name of Object.keys(this.compose.services)) visit(name, []);
    return order;
  }

  dependencies(name: string): Record<string, string> {
    const dependsOn = this.service(name).depends_on ?? {};
    if (Array.isArray(dependsOn)) return Object.fromEntries(dependsOn.map((d) => [d, 'service_started']));
    return Object.fromEntries(Object.entries(dependsOn).map(([d, v]) => [d, v.condition ?? 'service_started']));
  }

  image(name: string): string {
    const image = this.imageOverrides[name] ?? this.builtImages[name] ?? this.service(name).image;
    if (!image) throw new Error(`service ${name} has neither an image nor a built one`);
    return image;
  }

  /** The `podman run` arguments of a service: what Compose asks the engine for. */
  runArgs(name: string, instance: Instance = { index: 1, publish: true }): string[] {
    const s = this.service(name);
    const args = ['run', '--detach', '--name', this.container(name, instance.index), '--label', this.label, '--label', `com.docker.compose.service=${name}`];
    const networks = s.networks ?? ['default'];
    for (const network of networks) args.push('--network', this.network(network), '--network-alias', name);
    const environment = Array.isArray(s.environment)
      ? s.environment
      : Object.entries(s.environment ?? {}).map(([key, value]) => `${key}=${value ?? ''}`);
    for (const pair of environment) args.push('--env', pair);
    for (const volume of s.volumes ?? []) {
      const [source = '', ...rest] = volume.split(':');
      const named = !source.startsWith('.') && !source.startsWith('/');
      if (named && !(source in (this.compose.volumes ?? {}))) throw new Error(`service ${name} mounts ${source}, which is not a declared volume`);
      args.push('--volume', [named ? this.volume(source, instance.index) : path.resolve(this.projectDir, source), ...rest].join(':'));
    }
    if (instance.publish) for (const port of s.ports ?? []) args.push('--publish', port);
    if (s.restart) args.push('--restart', s.restart);
    if (s.logging?.driver) args.push('--log-driver', s.logging.driver);
    for (const [key, value] of Object.entries(s.logging?.options ?? {})) args.push('--log-opt', `${key}=${value}`);
    if (s.init) args.push('--init');
    if (s.user) args.push('--user', s.user);
    // Docker's read_only mounts nothing writable on its own: only the file's tmpfs entries are.
    if (s.read_only) args.push('--read-only', '--read-only-tmpfs=false');
    for (const tmpfs of asList(s.tmpfs)) args.push('--tmpfs', tmpfs);
    if (s.stop_grace_period) args.push('--stop-timeout', String(Math.ceil(durationMs(s.stop_grace_period, 10_000) / 1000)));
    const health = s.healthcheck;
    if (health?.disable) args.push('--no-healthcheck');
    else if (health?.test) {
      const test = asList(health.test);
      if (test[0] === 'CMD') args.push('--health-cmd', JSON.stringify(test.slice(1)));
      else if (test[0] === 'CMD-SHELL') args.push('--health-cmd', test.slice(1).join(' '));
      else if (test[0] === 'NONE') args.push('--no-healthcheck');
      else args.push('--health-cmd', test.join(' '));
      if (health.interval) args.push('--health-interval', health.interval);
      if (health.timeout) args.push('--health-timeout', health.timeout);
      if (health.retries !== undefined) args.push('--health-retries', String(health.retries));
      if (health.start_period) args.push('--health-start-period', health.start_period);
    }
    args.push(this.image(name), ...asList(s.command));
    return args;
  }

  /** The networks (with their subnets) and named volumes, as `docker compose up` creates them. */
  async createResources(): Promise<void> {
    const used = new Set(Object.values(this.compose.services).flatMap((s) => s.networks ?? ['default']));
    for (const network of used) {
      const subnets = (this.compose.networks?.[network]?.ipam?.config ?? []).map((c) => c.subnet).filter((s): s is string => Boolean(s));
      if ((await this.podman.run(['network', 'exists', this.network(network)], { allowFailure: true })).code === 0) continue;
      await this.podman.run(['network', 'create', '--label', this.label, ...subnets.flatMap((s) => ['--subnet', s]), this.network(network)]);
    }
    for (const volume of Object.keys(this.compose.volumes ?? {})) await this.createVolume(volume, 1);
  }

  async createVolume(volume: string, index: number): Promise<void> {
    if ((await this.podman.run(['volume', 'exists', this.volume(volume, index)], { allowFailure: true })).code === 0) return;
    await this.podman.run(['volume', 'create', '--label', this.label, this.volume(volume, index)]);
  }

  /** Creates and starts one container of a service (its dependencies' conditions are the caller's). */
  async runService(name: string, instance: Instance = { index: 1, publish: true }): Promise<void> {
    for (const volume of this.service(name).volumes ?? []) {
      const source = volume.split(':')[0]!;
      if (source in (this.compose.volumes ?? {})) await this.createVolume(source, instance.index);
    }
    await this.podman.run(this.runArgs(name, instance));
  }

  /** Waits until the dependencies of `name` meet their conditions (service_healthy: the health check passes). */
  async waitForDependencies(name: string, timeoutMs: number): Promise<void> {
    for (const [dependency, condition] of Object.entries(this.dependencies(name))) {
      if (condition === 'service_healthy') await this.waitHealthy(this.container(dependency), timeoutMs);
      else if (condition !== 'service_started') throw new Error(`depends_on condition ${condition} is not translated`);
    }
  }

  /**
   * Runs the container's health check until it passes. Every second rather than
   * at the file's interval: the outcome is the same, the test is faster.
   */
  async waitHealthy(container: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const state = await this.podman.state(container);
      if (state !== 'running') throw new Error(`${container} is ${state ?? 'gone'}, not running:\n${await this.podman.logs(container)}`);
      if (await this.podman.healthy(container)) return;
      if (Date.now() > deadline) throw new Error(`${container} not healthy after ${timeoutMs / 1000} s:\n${await this.podman.logs(container)}`);
      await sleep(1000);
    }
  }

  /** `docker compose up -d`: every service in order, each once its dependencies are ready. */
  async up(timeoutMs: number): Promise<void> {
    await this.createResources();
    for (const name of this.startOrder()) {
      await this.waitForDependencies(name, timeoutMs);
      await this.runService(name);
    }
  }

  /** `docker compose stop`: in reverse start order, each within its stop_grace_period. */
  async stop(services = this.startOrder().reverse()): Promise<void> {
    for (const name of services) await this.podman.run(['stop', this.container(name)], { timeoutMs: durationMs(this.service(name).stop_grace_period, 10_000) + 30_000 });
  }

  /** `docker compose start`: the existing containers, in order, each once its dependencies are ready. */
  async start(timeoutMs: number, services = this.startOrder()): Promise<void> {
    for (const name of services) {
      await this.waitForDependencies(name, timeoutMs);
      await this.podman.run(['start', this.container(name)]);
    }
  }

  /** `docker compose down --volumes`: every container, volume and network of the project, whatever run left them. */
  async down(): Promise<void> {
    // Dependents first, as `down` does: a portal whose database went first waits out its timeouts.
    const containers = await this.podman.labelled('container', this.label);
    const rank = (container: string) => this.startOrder().findIndex((service) => container.startsWith(`${this.name}-${service}-`));
    for (const container of containers.sort((a, b) => rank(b) - rank(a))) {
      await this.podman.run(['rm', '--force', '--time', '10', container], { timeoutMs: 120_000 });
    }
    const volumes = await this.podman.labelled('volume', this.label);
    if (volumes.length > 0) await this.podman.run(['volume', 'rm', '--force', ...volumes]);
    const networks = await this.podman.labelled('network', this.label);
    if (networks.length > 0) await this.podman.run(['network', 'rm', '--force', ...networks]);
  }
}
