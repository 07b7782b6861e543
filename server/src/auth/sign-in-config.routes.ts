import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';

/** The scopes of docs/behaviour.md#staff-and-administrators; `groups` carries the admin group into the ID token. */
export const SIGN_IN_SCOPES = 'openid profile email groups';

/** What the browser needs to start the authorization code flow with PKCE: nothing secret. */
export interface SignInConfig {
  issuer: string;
  clientId: string;
}

const SignInConfigResponse = Type.Object({
  issuer: Type.String({ description: "The OpenID provider's issuer URL (its discovery document lives under it)" }),
  client_id: Type.String(),
  scopes: Type.String({ description: 'Space-separated scopes to request' }),
});

/**
 * Public, so the web app carries no build-time provider settings: one build
 * runs against the embedded provider, Okta or Keycloak alike.
 */
export function signInConfigRoutes(config: SignInConfig): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/auth-config', {
      schema: {
        tags: ['public'],
        summary: 'Where staff sign in: issuer, client id and scopes for the browser',
        response: { 200: SignInConfigResponse },
      },
    }, (_request, reply) => {
      void reply.header('cache-control', 'no-cache');
      return { issuer: config.issuer, client_id: config.clientId, scopes: SIGN_IN_SCOPES };
    });
  };
}
