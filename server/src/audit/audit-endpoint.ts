import type { FastifyRequest } from 'fastify';

/**
 * Which requests the audit trail records, and under what endpoint.
 *
 * The raw URL says little about where a request went: Fastify's router
 * (find-my-way) percent-decodes the path before it matches, so
 * `/%72est-api/submit-tx` reaches `/rest-api/submit-tx`. A request that
 * reached a route is therefore judged by the route: audited when its pattern
 * lies under the API prefix, and recorded under that pattern
 * (`/rest-api/client/update/:id`, not the id it was called with). A route
 * with `config: { audit: false }` stays out, however its path was spelt.
 *
 * A request no API route took (a 404, or a catch-all such as CORS's
 * `OPTIONS *` or the API docs' static files) has no pattern to go by. It is
 * audited when its path lies under the prefix as anything in front of the
 * portal might read it (repeated percent-decoding, any case, backslashes,
 * doubled slashes, dot segments, `;` parameters, absolute-form targets), and
 * recorded under its path as the router decoded it, cut to 512 characters.
 * Reading generously costs at most a row for a request that reached nothing.
 */

/** The two APIs: the portal's own `/rest-api` and the Slipstream-compatible `/api` (modules/slipstream-api; docs/glossary.md#the-two-public-apis). */
const API_PREFIXES = ['/rest-api', '/api'];
const API_SEGMENTS = new Set(['rest-api', 'api']);
export const MAX_ENDPOINT_CHARS = 512;
/** Enough to undo any realistic stack of encodings; each round is linear in the path. */
const MAX_DECODE_ROUNDS = 4;

/** The endpoint to audit `request` under, or undefined when it stays out of the trail. */
export function auditEndpoint(request: Pick<FastifyRequest, 'url' | 'routeOptions'>): string | undefined {
  if (request.routeOptions.config?.audit === false) return undefined;
  const pattern = request.routeOptions.url;
  if (pattern !== undefined && isApiPattern(pattern)) return pattern;
  return unroutedEndpoint(request.url);
}

/** For a request no API route took: its decoded path, cut, when the path lies under the API prefix. */
export function unroutedEndpoint(url: string): string | undefined {
  return pathReachesApi(url) ? firstCodePoints(routerPath(url), MAX_ENDPOINT_CHARS) : undefined;
}

function isApiPattern(pattern: string): boolean {
  return API_PREFIXES.some((prefix) => pattern === prefix || pattern.startsWith(`${prefix}/`));
}

/** The request target up to its query or fragment, decoded as the router decodes it (decodeURI: `%2F` stays escaped). */
export function routerPath(url: string): string {
  const path = beforeQuery(url);
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}

/** Whether `url`'s path, read as generously as any server or proxy might, lies under an API prefix (`/rest-api` or `/api`). */
export function pathReachesApi(url: string): boolean {
  let target = url;
  // An absolute-form target (RFC 9112, section 3.2.2): its path is what a proxy would forward.
  if (!target.startsWith('/') && URL.canParse(target)) target = new URL(target).pathname;
  let path = beforeQuery(target);
  for (let round = 0; round < MAX_DECODE_ROUNDS; round++) {
    const decoded = decodeLoosely(path);
    if (decoded === path) break;
    path = decoded;
  }
  const segments = path.replaceAll('\\', '/').toLowerCase().split('/');
  // As written (`/rest-api/../x`) and with its dot segments resolved (`/x/../rest-api/y`, RFC 3986, section 5.2.4).
  return isApiSegment(segments.find((s) => s !== '' && s !== '.')) || isApiSegment(resolveDotSegments(segments)[0]);
}

function beforeQuery(url: string): string {
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}

/** `rest-api`, `rest-api;jsessionid=1`, ` rest-api `; `api` likewise. */
function isApiSegment(segment: string | undefined): boolean {
  return segment !== undefined && API_SEGMENTS.has(segment.split(';')[0]!.replaceAll('\0', '').trim());
}

/** Segments with `.` and empty ones dropped and each `..` removing the one before. */
function resolveDotSegments(segments: string[]): string[] {
  const out: string[] = [];
  for (const segment of segments) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') out.pop();
    else out.push(segment);
  }
  return out;
}

/** One round of percent-decoding that never throws: a run that is not valid UTF-8 still has its ASCII escapes decoded. */
function decodeLoosely(text: string): string {
  return text.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run.replace(/%([0-7][0-9a-f])/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    }
  });
}

/**
 * The first `n` code points, as the schemas count a client code's 64
 * (ajv counts code points): a UTF-16 slice could end on half an emoji,
 * which the database would store as U+FFFD.
 */
export function firstCodePoints(text: string, n: number): string {
  let end = 0;
  for (let count = 0; count < n && end < text.length; count++) end += text.codePointAt(end)! > 0xffff ? 2 : 1;
  return text.slice(0, end);
}
