/**
 * A Server-Sent Events parser for a stream read with fetch() (WHATWG HTML,
 * "Interpreting an event stream"): EventSource cannot send an Authorization
 * header, and a token in the URL would be written to every access log.
 * Text goes in as it arrives, in chunks cut anywhere; complete events come
 * out. Lines end at CRLF, LF or CR; a line starting with ':' is a comment;
 * `event`, `data` and `retry` are the fields used (`id` is ignored: the
 * server sends whole states, so nothing is resumed from an id).
 */

export interface SseHandlers {
  /** A dispatched event: its type ('message' when none was named) and its data lines joined by LF. */
  event(type: string, data: string): void;
  /** The server's reconnection delay (ms). */
  retry(ms: number): void;
}

export interface SseParser {
  push(chunk: string): void;
}

export function createSseParser(handlers: SseHandlers): SseParser {
  let buffer = '';
  let type = '';
  let data: string[] = [];

  const line = (text: string) => {
    if (text === '') {
      // A blank line dispatches the event, if it has data.
      if (data.length > 0) handlers.event(type === '' ? 'message' : type, data.join('\n'));
      type = '';
      data = [];
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') type = value;
    else if (field === 'data') data.push(value);
    else if (field === 'retry' && /^[0-9]+$/.test(value)) handlers.retry(Number(value));
  };

  // A CR ends a line at once; an LF right after it (even in the next chunk) is the rest of a CRLF.
  let afterCR = false;

  return {
    push(chunk) {
      buffer += chunk;
      let start = 0;
      if (afterCR && buffer.startsWith('\n')) start = 1;
      afterCR = false;
      for (;;) {
        const lf = buffer.indexOf('\n', start);
        const cr = buffer.indexOf('\r', start);
        const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
        if (end === -1) break;
        line(buffer.slice(start, end));
        start = end + 1;
        if (end === cr) {
          if (start === buffer.length) afterCR = true;
          else if (buffer[start] === '\n') start += 1;
        }
      }
      buffer = buffer.slice(start);
    },
  };
}
