import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';

/**
 * In-memory storage for the embedded provider's sessions, interactions,
 * grants, codes and tokens. One store per embedded provider, shared by the
 * Provider instances that key rotation creates, so a rotation keeps everyone
 * signed in. Development only. It can start from a snapshot and says when it
 * changed, so that the provider can keep it in DATA_DIR and a restart keeps
 * refresh tokens (and so dashboard sessions) working.
 */

/** What a store holds, as JSON: entries with their expiry in ms (null: never), and each grant's members. */
export interface StoreSnapshot {
  entries: Array<[string, unknown, number | null]>;
  grants: Array<[string, string[]]>;
}

export type PersistentStore = AdapterFactory & { snapshot(): StoreSnapshot };

interface Entry {
  value: unknown;
  expiresAt: number;
}

/** Models whose entries die with their grant (oidc-provider's revokeByGrantId). */
const GRANTABLE = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
  'PreAuthorizedCode',
]);

const SWEEP_EVERY = 500;

export function createDevProviderStore(options: { snapshot?: StoreSnapshot | undefined; onChange?: () => void } = {}): PersistentStore {
  const entries = new Map<string, Entry>();
  const grants = new Map<string, Set<string>>();
  let writes = 0;
  const now0 = Date.now();
  for (const [key, value, expiresAt] of options.snapshot?.entries ?? []) {
    if (expiresAt === null || expiresAt > now0) entries.set(key, { value, expiresAt: expiresAt ?? Infinity });
  }
  for (const [grantId, members] of options.snapshot?.grants ?? []) grants.set(grantId, new Set(members.filter((m) => entries.has(m))));
  const changed = options.onChange ?? (() => {});

  const get = (key: string): unknown => {
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      entries.delete(key);
      return undefined;
    }
    return entry.value;
  };

  const set = (key: string, value: unknown, expiresIn: number | undefined): void => {
    entries.set(key, { value, expiresAt: expiresIn === undefined ? Infinity : Date.now() + expiresIn * 1000 });
    changed();
    if (++writes % SWEEP_EVERY === 0) {
      const now = Date.now();
      for (const [k, entry] of entries) if (entry.expiresAt <= now) entries.delete(k);
    }
  };

  const factory = (model: string): Adapter => {
    const key = (id: string) => `${model}:${id}`;
    const find = async (id: string | undefined) => (id === undefined ? undefined : (get(key(id)) as AdapterPayload | undefined));
    return {
      async upsert(id, payload, expiresIn) {
        set(key(id), payload, expiresIn);
        if (model === 'Session' && payload.uid) set(`sessionUid:${payload.uid}`, id, expiresIn);
        if (payload.userCode) set(`userCode:${payload.userCode}`, id, expiresIn);
        if (GRANTABLE.has(model) && payload.grantId) {
          const members = grants.get(payload.grantId) ?? new Set<string>();
          members.add(key(id));
          grants.set(payload.grantId, members);
        }
      },
      find,
      async findByUid(uid) {
        return find(get(`sessionUid:${uid}`) as string | undefined);
      },
      async findByUserCode(userCode) {
        return find(get(`userCode:${userCode}`) as string | undefined);
      },
      async consume(id) {
        const payload = get(key(id)) as AdapterPayload | undefined;
        // RFC 6749 section 4.1.2: a code is single use; oidc-provider checks `consumed`.
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
        changed();
      },
      async destroy(id) {
        entries.delete(key(id));
        changed();
      },
      async revokeByGrantId(grantId) {
        for (const member of grants.get(grantId) ?? []) entries.delete(member);
        grants.delete(grantId);
        changed();
      },
    };
  };
  return Object.assign(factory, {
    snapshot(): StoreSnapshot {
      const now = Date.now();
      return {
        entries: [...entries].filter(([, e]) => e.expiresAt > now).map(([k, e]) => [k, e.value, Number.isFinite(e.expiresAt) ? e.expiresAt : null]),
        grants: [...grants].map(([g, members]) => [g, [...members]]),
      };
    },
  });
}
