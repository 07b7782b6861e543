import { api } from './http.ts';
import type { paths } from './schema';

export type AuthConfig = paths['/rest-api/auth-config']['get']['responses'][200]['content']['application/json'];

/** docs/behaviour.md#sign-in-retries: the sign-in layer retries up to 5 times on network failure or 429. */
export const SIGN_IN_RETRY_LIMIT = 5;

const getAuthConfig = () => api.GET('/rest-api/auth-config');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Where staff sign in. Retried with exponential backoff (1 s, 2 s, 4 s...)
 * like the rest of the sign-in layer's polling, since a sign-in page that
 * gives up on a momentary 429 strands the user.
 */
export async function fetchAuthConfig(): Promise<AuthConfig> {
  for (let attempt = 0; ; attempt++) {
    let answer: Awaited<ReturnType<typeof getAuthConfig>> | undefined;
    try {
      answer = await getAuthConfig();
    } catch (error) {
      if (attempt >= SIGN_IN_RETRY_LIMIT) throw error;
    }
    if (answer?.data) return answer.data;
    const response = answer?.response;
    if (response && response.status !== 429) throw new Error(`Sign-in settings unavailable (HTTP ${response.status})`);
    if (attempt >= SIGN_IN_RETRY_LIMIT) throw new Error('Sign-in settings unavailable: too many retries');
    await sleep(1000 * 2 ** attempt);
  }
}
