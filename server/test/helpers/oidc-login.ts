import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';

/**
 * Signs in through an OpenID provider the way a browser and a browser app do
 * together: the authorization code flow with PKCE (RFC 6749 section 4.1,
 * RFC 7636 with S256), cookies kept between requests, redirects followed by
 * hand, and the code redeemed at the token endpoint. The redirect URI itself
 * is never fetched: the code is read from the Location header pointing at it.
 */

export interface SignInOptions {
  issuer: string;
  clientId: string;
  redirectUri: string;
  username: string;
  password: string;
  /** Defaults to the scopes of docs/behaviour.md#staff-and-administrators. */
  scope?: string;
}

export interface SignInTokens {
  idToken: string;
  accessToken: string;
  refreshToken?: string;
  expiresIn: number;
}

export interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  [key: string]: unknown;
}

/** A sign-in the provider refused; `page` is the HTML it showed, if any. */
export class SignInError extends Error {
  readonly page: string | undefined;
  constructor(message: string, page?: string) {
    super(message);
    this.name = 'SignInError';
    this.page = page;
  }
}

const MAX_REDIRECTS = 10;

/** Just enough of RFC 6265 for one host: name, path, deletion. */
class CookieJar {
  readonly #cookies = new Map<string, { name: string; value: string; path: string }>();

  store(response: Response, url: URL): void {
    for (const header of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = header.split(';').map((part) => part.trim());
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      let path = url.pathname.replace(/\/[^/]*$/, '') || '/';
      let expired = false;
      for (const attribute of attributes) {
        const [key = '', val = ''] = attribute.split('=', 2);
        const lower = key.toLowerCase();
        if (lower === 'path' && val.startsWith('/')) path = val;
        if (lower === 'max-age' && Number(val) <= 0) expired = true;
        if (lower === 'expires' && Date.parse(val) <= Date.now()) expired = true;
      }
      const key = `${name};${path}`;
      if (expired) this.#cookies.delete(key);
      else this.#cookies.set(key, { name, value, path });
    }
  }

  header(url: URL): string | undefined {
    const matching = [...this.#cookies.values()]
      .filter(({ path }) => url.pathname === path || url.pathname.startsWith(path.endsWith('/') ? path : `${path}/`))
      // Longer paths first, as browsers send them.
      .sort((a, b) => b.path.length - a.path.length);
    return matching.length ? matching.map(({ name, value }) => `${name}=${value}`).join('; ') : undefined;
  }
}

function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

export async function discover(issuer: string): Promise<Discovery> {
  const response = await fetch(`${issuer}/.well-known/openid-configuration`);
  if (!response.ok) throw new Error(`Discovery failed with HTTP ${response.status}`);
  const discovery = (await response.json()) as Discovery;
  // OIDC Discovery 1.0 section 4.3: the issuer must match exactly.
  if (discovery.issuer !== issuer) throw new Error(`Discovery issuer ${discovery.issuer} is not ${issuer}`);
  return discovery;
}

/** The outcome of the browser half: a code for the app to redeem. */
export interface AuthorizationResult {
  discovery: Discovery;
  code: string;
  codeVerifier: string;
  nonce: string;
}

function alertText(html: string): string | undefined {
  const match = /<p role="alert"[^>]*>([^<]*)<\/p>/.exec(html);
  return match?.[1];
}

function formAction(html: string, base: URL): URL {
  const match = /<form[^>]*\baction="([^"]*)"/.exec(html);
  return new URL(match?.[1] ?? base.href, base);
}

/** The browser half: authorization request, login form, redirects back to the app. */
export async function authorize(options: SignInOptions): Promise<AuthorizationResult> {
  const discovery = await discover(options.issuer);
  const jar = new CookieJar();
  const codeVerifier = randomToken();
  const state = randomToken();
  const nonce = randomToken();

  const start = new URL(discovery.authorization_endpoint);
  start.search = new URLSearchParams({
    response_type: 'code',
    client_id: options.clientId,
    redirect_uri: options.redirectUri,
    scope: options.scope ?? 'openid profile email groups',
    state,
    nonce,
    code_challenge: createHash('sha256').update(codeVerifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();

  const app = new URL(options.redirectUri);
  const redirectTarget = `${app.origin}${app.pathname}`;
  let url = start;
  let init: RequestInit = { method: 'GET' };
  let submitted = false;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    if (`${url.origin}${url.pathname}` === redirectTarget) {
      const params = url.searchParams;
      const error = params.get('error');
      if (params.get('state') !== state) throw new SignInError(`The state parameter did not round-trip (error: ${error})`);
      if (error) throw new SignInError(`Authorization failed: ${error}: ${params.get('error_description') ?? ''}`);
      const code = params.get('code');
      if (!code) throw new SignInError('The redirect back to the app carried no code');
      return { discovery, code, codeVerifier, nonce };
    }
    const cookie = jar.header(url);
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string> | undefined), ...(cookie ? { cookie } : {}) },
    });
    jar.store(response, url);
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      url = new URL(location, url);
      init = { method: 'GET' };
      continue;
    }
    const page = await response.text();
    if (response.status !== 200 || !page.includes('<form')) {
      throw new SignInError(`Unexpected HTTP ${response.status} at ${url.pathname}: ${alertText(page) ?? page.slice(0, 300)}`, page);
    }
    if (submitted) {
      // The login form came back: the provider refused the credentials.
      throw new SignInError(`Sign-in refused: ${alertText(page) ?? 'login form shown again'}`, page);
    }
    submitted = true;
    url = formAction(page, url);
    init = {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: options.username, password: options.password }).toString(),
    };
  }
  throw new SignInError(`More than ${MAX_REDIRECTS} redirects`);
}

/** The app half: redeem the code with the PKCE verifier (RFC 7636 section 4.5). */
export async function redeemCode(
  options: Pick<SignInOptions, 'clientId' | 'redirectUri'>,
  result: AuthorizationResult,
): Promise<SignInTokens> {
  const response = await fetch(result.discovery.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: result.code,
      redirect_uri: options.redirectUri,
      client_id: options.clientId,
      code_verifier: result.codeVerifier,
    }).toString(),
  });
  const body = (await response.json()) as Record<string, unknown>;
  if (!response.ok) {
    throw new SignInError(`Token request failed with HTTP ${response.status}: ${String(body.error)}: ${String(body.error_description)}`);
  }
  const { id_token: idToken, access_token: accessToken, refresh_token: refreshToken, expires_in: expiresIn } = body;
  if (typeof idToken !== 'string' || typeof accessToken !== 'string' || typeof expiresIn !== 'number') {
    throw new SignInError('The token response lacks id_token, access_token or expires_in');
  }
  // OIDC Core 1.0 section 3.1.3.7: the ID token's nonce must be the one sent.
  if (decodeJwt(idToken).nonce !== result.nonce) throw new SignInError('The nonce did not round-trip');
  return { idToken, accessToken, expiresIn, ...(typeof refreshToken === 'string' ? { refreshToken } : {}) };
}

export async function signIn(options: SignInOptions): Promise<SignInTokens> {
  return redeemCode(options, await authorize(options));
}
