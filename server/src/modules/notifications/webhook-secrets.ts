import { createHmac, hkdfSync, randomBytes } from 'node:crypto';

/**
 * A subscription's signing secret is never stored: it is derived from a
 * random salt kept on the row and the portal's own key, so the same secret
 * comes back on every delivery and redelivery, on every instance, while a
 * copy of the database alone cannot sign anything.
 */
export interface WebhookKeys {
  secretFor(salt: string): string;
}

/** `portalKey`: the AES key the portal already derives from AUTH_KEY_SECRET or DATA_DIR/auth-key.secret. */
export function createWebhookKeys(portalKey: Buffer): WebhookKeys {
  const key = Buffer.from(hkdfSync('sha256', portalKey, Buffer.alloc(0), 'slipstream-portal webhook secrets v1', 32));
  return {
    secretFor: (salt) => `whsec_${createHmac('sha256', key).update(salt).digest('base64url')}`,
  };
}

export const newSecretSalt = (): string => randomBytes(16).toString('base64url');
