import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FastifyReply } from 'fastify';
import { Type, type TSchema } from 'typebox';

/**
 * CSV downloads of the staff lists (docs/behaviour.md#downloads).
 *
 * Encoding follows RFC 4180: records end in CRLF; a field holding a comma, a
 * double quote, CR or LF is enclosed in double quotes, with each inner double
 * quote doubled. The first record is the header (the media type says so:
 * RFC 4180 section 3, `header=present`). A field holding a semicolon or a tab
 * is quoted too: spreadsheets set to a ';' list separator (most European
 * locales) or reading tabs as one would otherwise split it there, and the
 * piece after the separator becomes a cell of its own that can start a
 * formula (`x;=cmd|' /C calc'!A0`). OWASP ("CSV Injection") asks for the same:
 * a field holding a separator is wrapped in double quotes.
 *
 * Text cells are also neutralised against spreadsheet formula injection
 * (OWASP, "CSV Injection"): a cell that begins with =, +, -, @, a tab or a
 * carriage return would be run as a formula by Excel, LibreOffice or Google
 * Sheets, so it gets a leading single quote, which spreadsheets show as text.
 * Spreadsheets skip leading whitespace before they look for a formula, so
 * the same goes for those characters behind spaces or line breaks
 * (' =cmd', '\n=HYPERLINK(...)').
 * Client codes come from anyone who submits a transaction, so this matters.
 * Numbers are written by the portal itself and left as they are (a negative
 * amount stays a number).
 *
 * A download streams: rows arrive in batches (keyset pages of the database),
 * each batch is sent in chunks of about 32 KB, and the next batch is read
 * only when the client has taken the previous ones (Readable.from pulls on
 * demand), so memory stays flat however many rows match.
 */

export type CsvCell = string | number | null | undefined;

export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8; header=present';

/** Characters that make a spreadsheet read the cell as a formula (OWASP), also behind any leading whitespace. */
const FORMULA_START = /^(?:[\t\r]|\s*[=+\-@])/;
/**
 * Characters that need the field quoted: RFC 4180 section 2, rule 6, plus the
 * other list separators spreadsheets use (';' and tab), so that no part of a
 * field can become a cell of its own.
 */
const NEEDS_QUOTES = /[",;\t\r\n]/;

/** `text` with a leading ' when a spreadsheet would otherwise run it as a formula. */
export function neutraliseFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** One field as RFC 4180 writes it: quoted when it must be, inner quotes doubled. */
export function escapeCsvField(text: string): string {
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A cell: null and undefined are empty, numbers as JavaScript prints them, text neutralised then escaped. */
export function csvCell(value: CsvCell): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`A CSV cell cannot hold ${value}`);
    return String(value);
  }
  return escapeCsvField(neutraliseFormula(value));
}

/** One record, CRLF-terminated. */
export function csvRow(cells: readonly CsvCell[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/** The yyyy-mm-dd-hh-mm-ss (UTC) of a download's file name (docs/behaviour.md#downloads). */
export function csvFileTimestamp(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', '-').replaceAll(':', '-');
}

/**
 * Rows are sent in chunks of about this many characters: small enough that
 * each is an ordinary young-generation string that dies in the next
 * scavenge (V8 puts strings over 128 KB straight into the old generation,
 * where a batch-sized chunk per batch piled up as garbage until the next full
 * collection), large enough that a chunk is one socket write of a useful size.
 */
const CHUNK_CHARS = 32 * 1024;

/**
 * The header record, then the rows of each batch in chunks. The first batch
 * is read before this resolves, so a database that is down answers with an
 * error status instead of a file cut off after its headers were sent.
 * Destroying the stream (the client went away) ends `batches` too: its
 * generator's `finally` runs and no further batch is read.
 */
export async function csvStream(header: readonly string[], batches: AsyncIterable<ReadonlyArray<readonly CsvCell[]>>): Promise<Readable> {
  const iterator = batches[Symbol.asyncIterator]();
  const first = await iterator.next();
  async function* chunks(): AsyncGenerator<string> {
    try {
      yield csvRow(header);
      let next = first;
      while (!next.done) {
        let chunk = '';
        for (const row of next.value) {
          chunk += csvRow(row);
          if (chunk.length >= CHUNK_CHARS) {
            yield chunk;
            chunk = '';
          }
        }
        if (chunk !== '') yield chunk;
        // A turn of the event loop between batches. On PGlite a batch's query
        // runs on this thread, and while the socket's buffer takes whatever
        // is written the pipe would go straight on to the next batch without
        // ever reaching the loop's I/O phase: every other request would wait
        // until the buffer filled (about 170 ms of batches on loopback;
        // server/bench/csv-export.ts). Here a download holds the thread for
        // one batch at a time.
        await nextTurn();
        // Destroyed while this waited (the client went away): no further batch is read.
        if (stream.destroyed) return;
        next = await iterator.next();
      }
    } finally {
      // Stops the database reads when the stream ends early (client gone, error).
      await iterator.return?.();
    }
  }
  // Bytes, not objects: highWaterMark then counts bytes, so about two chunks
  // wait here while the client is slower than the database.
  const stream = Readable.from(chunks(), { objectMode: false, highWaterMark: 64 * 1024 });
  return stream;
}

export interface CsvDownload {
  /** A plain file name: letters, digits, '-', '_' and '.', so it needs no quoting rules beyond the quotes. */
  filename: string;
  body: Readable;
}

/** Sends a download as an attachment with its file name (RFC 6266). */
export function sendCsv(reply: FastifyReply, download: CsvDownload): FastifyReply {
  if (!/^[\w.-]+$/.test(download.filename)) throw new Error(`Unsafe download file name: ${download.filename}`);
  return reply
    .header('content-type', CSV_CONTENT_TYPE)
    .header('content-disposition', `attachment; filename="${download.filename}"`)
    // Staff data: neither shared caches nor the browser's keep a copy.
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .send(download.body);
}

/**
 * A list route's 200 answer: a page of JSON, or with download=true the CSV
 * file. One schema per media type, so the OpenAPI document and the web app's
 * generated types name both; Fastify serializes the JSON one by its schema
 * and sends the CSV stream as it is.
 */
export function jsonOrCsv<Json extends TSchema>(json: Json, description: string) {
  return {
    description,
    content: {
      'application/json': { schema: json },
      'text/csv': {
        schema: Type.String({ description: 'RFC 4180 CSV, a header record first, sent as an attachment with its file name (Content-Disposition)' }),
      },
    },
  };
}
