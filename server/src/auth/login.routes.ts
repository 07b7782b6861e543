import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorResponse } from '../http/errors.ts';
import type { LocalLoginService } from './local-login.service.ts';
import { LoginThrottledError } from './login-throttle.ts';
import { bearer } from './staff-scope.ts';

/** Sign-in attempts per IP per minute, tighter than the other public endpoints. */
export const LOGIN_ATTEMPTS_PER_MINUTE = 10;

const LoginBody = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 64 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: false },
);

const LoginResponse = Type.Object({ token: Type.String({ description: 'Bearer token for the staff API' }) });

export function loginRoutes(login: LocalLoginService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post('/login', {
      // Its own tighter per-address limit, instead of the public budget (http/public-scope.ts).
      config: { rateLimit: { max: LOGIN_ATTEMPTS_PER_MINUTE, timeWindow: 60_000 }, publicBudget: 'own-limit' },
      schema: {
        tags: ['staff'],
        summary: 'Sign in with a local staff account (for pools without single sign-on, and break-glass access)',
        body: LoginBody,
        response: { 200: LoginResponse, 400: ErrorResponse, 401: ErrorResponse, 429: ErrorResponse },
      },
    }, async (request, reply) => {
      try {
        return await login.login(request.body.username, request.body.password, request.ip);
      } catch (error) {
        // RFC 9110 section 10.2.3: when this address may try again on this username.
        if (error instanceof LoginThrottledError) void reply.header('retry-after', String(error.retryAfterSeconds));
        throw error;
      }
    });

    // Outside the staff scope on purpose: it is how a local session goes on, and it
    // checks the token itself, strictly, as the portal's own (never a provider's).
    app.post('/login/renew', {
      // Its own tighter per-address limit, instead of the public budget (http/public-scope.ts).
      config: { rateLimit: { max: LOGIN_ATTEMPTS_PER_MINUTE, timeWindow: 60_000 }, publicBudget: 'own-limit' },
      schema: {
        tags: ['staff'],
        summary: "A fresh token for a local staff account's valid one (the web app renews a minute before expiry); refused once the account is removed or changed",
        security: [{ bearer: [] }],
        response: { 200: LoginResponse, 401: ErrorResponse, 429: ErrorResponse },
      },
    }, (request) => login.renew(bearer(request)));
  };
}
