import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';

/**
 * In-memory storage for the embedded provider's sessions, interactions,
 * grants, codes and tokens. One store per embedded provider, shared by the
 * Provider instances that key rotation creates, so a rotation keeps everyone
 * signed in. Development only: nothing survives a restart.
 */

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

export function createDevProviderStore(): AdapterFactory {
  const entries = new Map<string, Entry>();
  const grants = new Map<string, Set<string>>();
  let writes = 0;

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
    if (++writes % SWEEP_EVERY === 0) {
      const now = Date.now();
      for (const [k, entry] of entries) if (entry.expiresAt <= now) entries.delete(k);
    }
  };

  return (model: string): Adapter => {
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
      },
      async destroy(id) {
        entries.delete(key(id));
      },
      async revokeByGrantId(grantId) {
        for (const member of grants.get(grantId) ?? []) entries.delete(member);
        grants.delete(grantId);
      },
    };
  };
}
