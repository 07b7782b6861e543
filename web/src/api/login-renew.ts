import { staffApi, unwrap } from './http.ts';
import type { paths } from './schema';

export type LoginRenewResponse = paths['/rest-api/login/renew']['post']['responses'][200]['content']['application/json'];

/**
 * The issuer of a local staff account's token: the portal itself
 * (server/src/auth/local-issuer.ts, LOCAL_ISSUER). Such a token is renewed at
 * the portal, not at the identity provider.
 */
export const LOCAL_TOKEN_ISSUER = 'urn:slipstream-portal:local-sign-in';

/** POST /rest-api/login/renew with the stored token as the bearer: a fresh token, or 401 once the account changed. */
export const renewLocalToken = (): Promise<Partial<LoginRenewResponse>> => unwrap(staffApi.POST('/rest-api/login/renew'));
