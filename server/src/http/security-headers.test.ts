import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { contentSecurityPolicy, createSecurityHeaders, HSTS_VALUE, originOf } from './security-headers.ts';

test('the policy: only the portal itself, plus the sign-in provider for calls and frames; Swagger UI adds inline styles only', () => {
  const app = contentSecurityPolicy('app', ['https://idp.example']);
  assert.equal(
    app,
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; media-src 'self'; " +
      "connect-src 'self' https://idp.example; frame-src 'self' https://idp.example; frame-ancestors 'self'; form-action 'self'; " +
      "base-uri 'self'; object-src 'none'",
  );
  const swagger = contentSecurityPolicy('swagger-ui', ['https://idp.example']);
  assert.equal(swagger, app.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'"));
  assert.doesNotMatch(`${app} ${swagger}`, /unsafe-eval|script-src[^;]*unsafe-inline|\*/);
  assert.equal(originOf('https://idp.example:8443/realms/pool/'), 'https://idp.example:8443');
});

test('set on 404s and thrown errors too, by path for Swagger UI, HSTS only for https', async () => {
  const app = Fastify({ trustProxy: true });
  createSecurityHeaders({ identityProviderOrigins: ['https://idp.example'] }).register(app);
  app.get('/boom', async () => {
    throw new Error('boom');
  });
  app.get('/swagger-ui/json', async () => ({}));
  const notFound = await app.inject({ method: 'GET', url: '/nope' });
  assert.equal(notFound.statusCode, 404);
  assert.equal(notFound.headers['content-security-policy'], contentSecurityPolicy('app', ['https://idp.example']));
  const boom = await app.inject({ method: 'GET', url: '/boom' });
  assert.equal(boom.statusCode, 500);
  assert.equal(boom.headers['x-content-type-options'], 'nosniff');
  assert.equal(boom.headers['referrer-policy'], 'strict-origin-when-cross-origin');
  assert.equal(boom.headers['strict-transport-security'], undefined);
  const swagger = await app.inject({ method: 'GET', url: '/swagger-ui/json', headers: { 'x-forwarded-proto': 'https' } });
  assert.equal(swagger.headers['content-security-policy'], contentSecurityPolicy('swagger-ui', ['https://idp.example']));
  assert.equal(swagger.headers['strict-transport-security'], HSTS_VALUE);
  // A path that merely starts with the same letters is not Swagger UI's.
  const lookalike = await app.inject({ method: 'GET', url: '/swagger-uix' });
  assert.equal(lookalike.headers['content-security-policy'], contentSecurityPolicy('app', ['https://idp.example']));
  await app.close();
});
