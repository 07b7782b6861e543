/**
 * `npm start`'s embedded defaults: a private regtest node when BITCOIN_RPC_URL
 * is not set, and the local development identity provider when OIDC_ISSUER is
 * not. Both live in server/dev/, development tooling that the production image
 * does not contain, so they are imported only when one of them is used. Where
 * they are absent, the start fails with a message naming the setting to
 * configure.
 */

/** The regtest node the runtime launched: how to reach it and how to stop it. */
export interface EmbeddedNode {
  rpcUrl: string;
  /** RPC cookie, rewritten on every start. */
  cookieFile: string;
  /** ZMQ endpoint publishing both `sequence` and `hashblock`. */
  zmqSequenceUrl: string;
  stop(): Promise<void>;
}

/** The local development identity provider the runtime started, with its demo accounts. */
export interface EmbeddedIdentityProvider {
  /** e.g. http://127.0.0.1:PORT, without a trailing slash. */
  issuer: string;
  staff: { username: string; password: string; groups: string[] }[];
  /** Where the accounts and keys are kept between starts (DATA_DIR/dev-identity.json). */
  stateFile?: string | undefined;
  /** Per demo account, whether the same password signs in at /login?method=password (set by the runtime). */
  passwordSignIn?: Record<string, 'added' | 'same' | 'own password'>;
  close(): Promise<void>;
}

export const PRODUCTION_REFUSAL =
  'The embedded identity provider is for development only; configure OIDC_ISSUER in production.';

/** An embedded default that cannot run here; the message says which setting to configure instead. */
export class EmbeddedDefaultUnavailableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'EmbeddedDefaultUnavailableError';
  }
}

interface DevTool {
  /** What the default provides, e.g. "a regtest node". */
  what: string;
  /** The setting that replaces it, e.g. BITCOIN_RPC_URL. */
  setting: string;
  /** What to set it to. */
  value: string;
}

const DEV_TOOLS = {
  node: { what: 'a regtest node', setting: 'BITCOIN_RPC_URL', value: "the pool's node RPC address" },
  identity: { what: 'a local development identity provider', setting: 'OIDC_ISSUER', value: "your identity provider's issuer URL" },
} satisfies Record<string, DevTool>;

/** server/dev/bitcoin/node-launcher.ts, used when BITCOIN_RPC_URL is not set. */
export function loadNodeLauncher(): Promise<typeof import('../dev/bitcoin/node-launcher.ts')> {
  return importDevTool(new URL('../dev/bitcoin/node-launcher.ts', import.meta.url), 'node');
}

/** server/dev/bitcoin/policy-node.ts: the standard-policy node beside the embedded regtest node. */
export function loadPolicyNode(): Promise<typeof import('../dev/bitcoin/policy-node.ts')> {
  return importDevTool(new URL('../dev/bitcoin/policy-node.ts', import.meta.url), 'node');
}

/** server/dev/auth/dev-identity-provider.ts, used when OIDC_ISSUER is not set. */
export function loadDevIdentityProvider(): Promise<typeof import('../dev/auth/dev-identity-provider.ts')> {
  return importDevTool(new URL('../dev/auth/dev-identity-provider.ts', import.meta.url), 'identity');
}

/**
 * Imports a module of server/dev/. A module that is not installed (server/dev/
 * itself, or a development dependency it needs) becomes an
 * EmbeddedDefaultUnavailableError naming the setting; any other failure is
 * the module's own and propagates as it is.
 */
export async function importDevTool<T>(url: URL, which: keyof typeof DEV_TOOLS): Promise<T> {
  const tool = DEV_TOOLS[which];
  try {
    return (await import(url.href)) as T;
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new EmbeddedDefaultUnavailableError(
      `${tool.setting} is not set, and the embedded default (${tool.what}) is development tooling this installation does not include (server/dev/). Set ${tool.setting} to ${tool.value}.`,
      { cause: error },
    );
  }
}
