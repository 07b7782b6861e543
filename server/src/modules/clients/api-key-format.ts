/**
 * How a client's API key looks: the prefix `sk_` tells a key from a staff
 * token in an Authorization header without asking the identity provider
 * about it. Apart from the repository so that routes can tell them apart
 * without reaching the database.
 */

export const API_KEY_PREFIX = 'sk_';

export function isApiKeyFormat(token: string): boolean {
  return token.startsWith(API_KEY_PREFIX);
}
