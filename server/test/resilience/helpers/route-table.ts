import assert from 'node:assert/strict';
import type { App } from '../../../src/app.ts';

/**
 * Every route the app serves, read from the app itself (Fastify's
 * printRoutes), so that a security test covers a route added tomorrow
 * without anyone remembering to list it. Each route read is checked back
 * with app.hasRoute, so a change in the printed format fails loudly instead
 * of silently dropping routes.
 */

export interface Route {
  method: string;
  /** As registered: `/rest-api/client/update/:id`. */
  url: string;
  /**
   * A wildcard route whose full path printRoutes does not print (it shows
   * `/swagger-ui/static/*` as `*` under `/swagger-ui/`): its path is a
   * prefix of the real one, and app.hasRoute cannot confirm it.
   */
  wildcardPrefix?: true;
}

/** Lines of `printRoutes({ commonPrefix: false })`: indentation of 4 per level, the node's path, its methods. */
const LINE = /^((?:│ {3}| {4})*)(?:├── |└── )(.*?)(?: \(([A-Z, ]+)\))?$/;

export function routeTable(app: App): Route[] {
  const routes: Route[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    if (line.trim() === '') continue;
    const match = LINE.exec(line);
    assert.ok(match, `printRoutes line not understood: ${JSON.stringify(line)}`);
    const depth = match[1]!.length / 4;
    stack.length = depth;
    stack.push(match[2]!);
    const url = stack.join('');
    for (const method of (match[3] ?? '').split(',').map((m) => m.trim()).filter(Boolean)) routes.push({ method, url });
  }
  for (const route of routes) {
    if (app.hasRoute({ method: route.method, url: route.url })) continue;
    assert.ok(route.url.endsWith('*'), `read ${route.method} ${route.url} from printRoutes, but the app has no such route`);
    route.wildcardPrefix = true;
  }
  // Every documented operation is in the table too: the parse missed nothing the OpenAPI document knows.
  const document = app.swagger() as { paths: Record<string, Record<string, unknown>> };
  for (const [path, operations] of Object.entries(document.paths)) {
    const url = path.replace(/\{(\w+)\}/g, ':$1');
    for (const method of Object.keys(operations)) {
      assert.ok(routes.some((r) => r.method === method.toUpperCase() && r.url === url), `${method.toUpperCase()} ${url} is in the OpenAPI document but not in the route table`);
    }
  }
  return routes;
}

/** A concrete URL for a route: `:name` parameters from `params` (default '1'), a wildcard as 'x'. */
export function concreteUrl(route: Route, params: Record<string, string | number> = {}): string {
  return route.url.replace(/:(\w+)/g, (_, name: string) => String(params[name] ?? 1)).replace(/\*$/, 'x');
}
