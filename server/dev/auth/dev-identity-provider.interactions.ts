import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { default as Provider, Interaction } from 'oidc-provider';
import type { DevStaffAccount } from './dev-identity-provider.config.ts';
import { loginPage, messagePage } from './dev-identity-provider.pages.ts';

/**
 * The embedded provider's own login page: oidc-provider sends the browser to
 * /interaction/:uid whenever it needs a login or a consent. Login checks the
 * demo staff list; consent is granted at once, since the only client is our
 * own app.
 */

export const INTERACTION_PATH = /^\/interaction\/([A-Za-z0-9_-]+)(\/abort)?$/;

const MAX_FORM_BYTES = 8 * 1024;

function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    // No scripts at all; inline styles only. form-action is left open because
    // the post ends in a redirect to the client's own origin.
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
  });
  res.end(html);
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) throw Object.assign(new Error('The form is too large.'), { status: 413 });
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** Compares in constant time so the check does not leak how much matched. */
function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function checkCredentials(staff: DevStaffAccount[], username: string, password: string): DevStaffAccount | undefined {
  // Compare every account's password, found or not, so timing does not reveal usernames.
  let match: DevStaffAccount | undefined;
  for (const person of staff) {
    const passwordOk = sameSecret(person.password, password);
    if (person.username === username && passwordOk) match = person;
  }
  return match;
}

/** Grants what the consent prompt found missing, as oidc-provider's own example does. */
async function grantConsent(provider: Provider, details: Interaction, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const accountId = details.session?.accountId;
  const clientId = details.params.client_id;
  if (!accountId || typeof clientId !== 'string') throw new Error('Consent interaction without a session or client');
  const grant = (details.grantId ? await provider.Grant.find(details.grantId) : undefined)
    ?? new provider.Grant({ accountId, clientId });
  const missing = details.prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(' '));
  }
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

/** Handles GET/POST /interaction/:uid and GET /interaction/:uid/abort. */
export async function handleInteraction(
  provider: Provider,
  staff: DevStaffAccount[],
  req: IncomingMessage,
  res: ServerResponse,
  uid: string,
  abort: boolean,
): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (details.uid !== uid) {
    sendHtml(res, 400, messagePage('Sign-in failed', 'This sign-in link does not match the current sign-in. Start again from the app.'));
    return;
  }
  if (abort && req.method === 'GET') {
    await provider.interactionFinished(req, res, {
      error: 'access_denied',
      error_description: 'End-User aborted interaction',
    }, { mergeWithLastSubmission: false });
    return;
  }
  if (details.prompt.name === 'consent' && req.method === 'GET') {
    await grantConsent(provider, details, req, res);
    return;
  }
  if (details.prompt.name !== 'login') {
    sendHtml(res, 400, messagePage('Sign-in failed', `Unsupported sign-in step: ${details.prompt.name}.`));
    return;
  }
  if (req.method === 'GET') {
    sendHtml(res, 200, loginPage(uid, '', null));
    return;
  }
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'GET, POST' }).end();
    return;
  }
  const form = await readForm(req);
  const username = form.get('username') ?? '';
  const person = checkCredentials(staff, username, form.get('password') ?? '');
  if (!person) {
    // One message for unknown user and wrong password alike.
    sendHtml(res, 200, loginPage(uid, username, 'Invalid username or password'));
    return;
  }
  // Consent follows as its own interaction, granted on arrival by the GET above.
  await provider.interactionFinished(req, res, { login: { accountId: person.username } }, { mergeWithLastSubmission: false });
}
