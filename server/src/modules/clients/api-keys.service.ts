import type { Database } from '../../db/database.ts';
import { ApiError } from '../../http/errors.ts';
import { issueApiKey, listApiKeys, revokeApiKey } from './api-keys.repository.ts';

/** Clients' API keys as the Clients screen manages them (api-keys.routes.ts). */
export function createApiKeyService(db: Database) {
  return {
    list: (clientId: number) => listApiKeys(db, clientId),
    async issue(clientId: number, staff: string) {
      const issued = await issueApiKey(db, clientId, staff);
      if (!issued) throw new ApiError(404, `No client with id ${clientId}.`);
      return issued;
    },
    async revoke(clientId: number, keyId: number, staff: string) {
      const revoked = await revokeApiKey(db, clientId, keyId, staff);
      if (!revoked) throw new ApiError(404, `Client ${clientId} has no API key with id ${keyId}.`);
      return revoked;
    },
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
