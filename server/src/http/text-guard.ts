import type { FastifyRequest } from 'fastify';
import { ApiError } from './errors.ts';

/**
 * Every text field is stored exactly as sent (emoji, right-to-left scripts,
 * combining marks included) or refused; never silently changed, never a 500.
 * Two things a JSON string can carry cannot be stored as sent:
 * - U+0000: Postgres text refuses it ("invalid byte sequence for encoding
 *   UTF8: 0x00"), so it would fail deep inside a service;
 * - an unpaired UTF-16 surrogate ("\ud800"): no Unicode character at all, it
 *   has no UTF-8 form (RFC 8259 section 8.2: such strings behave
 *   unpredictably); Postgres would store U+FFFD instead, or refuse it in JSON.
 * A request carrying either, in its body, query string or path, is refused
 * whole with a 400 naming the field, before any service runs.
 */

/** A container being walked: its values, its keys (objects) and how far the walk has come. */
interface Frame {
  items: readonly unknown[];
  keys: readonly string[] | undefined;
  next: number;
  /** Where this container sits in its parent; undefined at the top. */
  key: string | number | undefined;
  parent: Frame | undefined;
}

function open(value: object, key: string | number | undefined, parent: Frame | undefined): Frame {
  if (Array.isArray(value)) return { items: value as unknown[], keys: undefined, next: 0, key, parent };
  const keys = Object.keys(value);
  return { items: keys.map((k) => (value as Record<string, unknown>)[k]), keys, next: 0, key, parent };
}

/** A field name as a message shows it: 64 UTF-16 units at most, never half a surrogate pair. */
function shortened(name: string): string {
  if (name.length <= 64) return name;
  const last = name.charCodeAt(63);
  return `${name.slice(0, last >= 0xd800 && last <= 0xdbff ? 63 : 64)}…`;
}

/** A field's path for a message ('name', 'tx_hexes[2]', '[0].value'), built only when one is reported. */
function pathOf(frame: Frame, leaf: string | number): string {
  const keys: Array<string | number> = [leaf];
  for (let f: Frame | undefined = frame; f?.key !== undefined; f = f.parent) keys.push(f.key);
  keys.reverse();
  // Deep inside nested arrays, the innermost keys are the ones that say where.
  let path = keys.length > 8 ? '…' : '';
  for (const key of keys.slice(-8)) {
    const name = typeof key === 'number' ? `[${key}]` : shortened(key);
    path += typeof key === 'number' || path === '' ? name : `.${name}`;
  }
  return path;
}

/** The first code unit of `text` that is half of no surrogate pair. */
function unpairedSurrogate(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    const next = text.charCodeAt(i + 1);
    if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) i++;
    else return unit;
  }
  return -1;
}

function problemIn(text: string): string | undefined {
  if (text.includes('\0')) return 'a NUL character (U+0000), which text fields do not accept';
  if (!text.isWellFormed()) {
    const unit = unpairedSurrogate(text).toString(16).toUpperCase();
    return `an unpaired UTF-16 surrogate (\\u${unit}), which is not Unicode text`;
  }
  return undefined;
}

/**
 * Why `value` (a parsed body, query or path) cannot be stored as sent, or
 * undefined. Iterative, with memory in proportion to the depth: a body may
 * nest ten thousand arrays deep or hold millions of elements.
 */
export function unstorableText(value: unknown, where: string): string | undefined {
  if (typeof value === 'string') {
    const problem = problemIn(value);
    return problem && `The ${where} contains ${problem}.`;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  let frame: Frame | undefined = open(value, undefined, undefined);
  while (frame) {
    if (frame.next >= frame.items.length) {
      frame = frame.parent;
      continue;
    }
    const i = frame.next++;
    const key = frame.keys ? frame.keys[i]! : i;
    if (typeof key === 'string') {
      const problem = problemIn(key);
      if (problem) return `A field name in the ${where} contains ${problem}.`;
    }
    const child = frame.items[i];
    if (typeof child === 'string') {
      const problem = problemIn(child);
      if (problem) return `Field '${pathOf(frame, key)}' in the ${where} contains ${problem}.`;
    } else if (typeof child === 'object' && child !== null && !(Array.isArray(child) && child.length === 0)) {
      frame = open(child, key, frame);
    }
  }
  return undefined;
}

/** A preValidation hook: runs after the body is parsed and the staff token checked, before the schema and the handler. */
export async function refuseUnstorableText(request: FastifyRequest): Promise<void> {
  const problem = unstorableText(request.params, 'path') ?? unstorableText(request.query, 'query string') ?? unstorableText(request.body, 'body');
  if (problem) throw new ApiError(400, problem);
}
