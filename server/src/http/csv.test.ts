import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCsv } from '../../test/helpers/submission-fixtures.ts';
import { csvCell, csvFileTimestamp, csvRow, csvStream, escapeCsvField, neutraliseFormula } from './csv.ts';

test('fields with a comma, a semicolon, a tab, a double quote, CR or LF are quoted, inner quotes doubled; others are left alone', () => {
  assert.equal(escapeCsvField('plain'), 'plain');
  assert.equal(escapeCsvField(''), '');
  assert.equal(escapeCsvField('a,b'), '"a,b"');
  assert.equal(escapeCsvField('say "hi"'), '"say ""hi"""');
  assert.equal(escapeCsvField('"'), '""""');
  assert.equal(escapeCsvField('line\nbreak'), '"line\nbreak"');
  assert.equal(escapeCsvField('line\r\nbreak'), '"line\r\nbreak"');
  assert.equal(escapeCsvField("it's fine"), "it's fine");
  // Spreadsheets whose list separator is ';' (or that read tabs as one) would split these.
  assert.equal(escapeCsvField("it's; fine"), `"it's; fine"`);
  assert.equal(escapeCsvField('a\tb'), '"a\tb"');
});

test('a separator other than the comma cannot start a formula in a new cell', () => {
  // In a spreadsheet whose list separator is ';', unquoted, this would be two
  // cells, the second one the formula =cmd|' /C calc'!A0 (OWASP, "CSV Injection").
  const payload = "x;=cmd|' /C calc'!A0";
  assert.equal(csvCell(payload), `"x;=cmd|' /C calc'!A0"`);
  assert.equal(csvRow([payload, 'next']), `"x;=cmd|' /C calc'!A0",next\r\n`);
  assert.deepEqual(parseCsv(csvRow([payload])), [[payload]]);
  // Read with ';' as the separator, the quoted field is still one cell, so nothing in it begins a cell.
  assert.deepEqual(splitQuoted(csvCell(payload), ';'), [payload]);
  // The same behind a tab (tab-separated readers) and behind spaces.
  for (const text of ['x\t=cmd|\' /C calc\'!A0', 'x; +1', 'x;\t@SUM(A1)', 'a;b;-1']) {
    const cell = csvCell(text);
    assert.ok(cell.startsWith('"') && cell.endsWith('"'), `${JSON.stringify(text)} is quoted: ${cell}`);
    for (const separator of [';', '\t', ',']) assert.deepEqual(splitQuoted(cell, separator), [text], `${JSON.stringify(text)} split on ${JSON.stringify(separator)}`);
  }
  // A formula at the start and a separator later: neutralised and quoted (OWASP's own example).
  assert.equal(csvCell('=1+2";=1+2'), `"'=1+2"";=1+2"`);
  assert.equal(csvCell(`=1+2'" ;,=1+2`), `"'=1+2'"" ;,=1+2"`);
});

test('cells that a spreadsheet would run as a formula get a leading single quote', () => {
  for (const text of ['=1+1', '+1', '-1', '@SUM(A1)', '\tTAB', '\rCR', '=HYPERLINK("http://x","y")']) {
    assert.equal(neutraliseFormula(text), `'${text}`, JSON.stringify(text));
  }
  for (const text of ['ACME10', '1=1', 'a-b', 'mail@example.com', ' x=1', 'a\n=b', '', "'already"]) {
    assert.equal(neutraliseFormula(text), text, JSON.stringify(text));
  }
  // Neutralised first, then escaped: the quote stays inside the field.
  assert.equal(csvCell('=HYPERLINK("http://x","y")'), `"'=HYPERLINK(""http://x"",""y"")"`);
  assert.equal(csvCell('-2,5'), `"'-2,5"`);
});

test('a formula behind leading spaces, tabs or line breaks is neutralised too', () => {
  // Spreadsheets skip leading whitespace before reading a formula (OWASP, "CSV Injection").
  for (const text of [' =cmd', '   +1', '\n=HYPERLINK("http://x","y")', '\r\n-1', '\t@SUM(A1)', ' \t\n @x', '\u00a0=1', '\u3000=1', '\v=1', '\f+1']) {
    assert.equal(neutraliseFormula(text), `'${text}`, JSON.stringify(text));
  }
  // Read back through a CSV parser, the cell is the text with its quote, line breaks and all.
  assert.deepEqual(parseCsv(csvRow(['\n=HYPERLINK("http://x","y")', ' =cmd'])), [[`'\n=HYPERLINK("http://x","y")`, "' =cmd"]]);
});

/** Splits one CSV record on `separator` the way a spreadsheet does: separators inside double quotes do not count. */
function splitQuoted(record: string, separator: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < record.length; i++) {
    const char = record[i]!;
    if (quoted) {
      if (char === '"' && record[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === separator) {
      cells.push(cell);
      cell = '';
    } else cell += char;
  }
  cells.push(cell);
  return cells;
}

test('numbers are written as numbers, empty values as empty fields', () => {
  assert.equal(csvCell(42), '42');
  assert.equal(csvCell(-5), '-5', 'the portal\'s own numbers are not text to neutralise');
  assert.equal(csvCell(12.5), '12.5');
  assert.equal(csvCell(0), '0');
  assert.equal(csvCell(null), '');
  assert.equal(csvCell(undefined), '');
  assert.throws(() => csvCell(Number.NaN), RangeError);
  assert.throws(() => csvCell(Number.POSITIVE_INFINITY), RangeError);
});

test('a record joins its cells with commas and ends in CRLF; parsing it back gives the cells', () => {
  const cells = ['a', 'b,c', 'd "e"', 'f\r\ng', '=cmd', '', '-x'];
  const line = csvRow([...cells, 7, null]);
  assert.ok(line.endsWith('\r\n'));
  assert.deepEqual(parseCsv(line), [['a', 'b,c', 'd "e"', 'f\r\ng', "'=cmd", '', "'-x", '7', '']]);
});

test('file name timestamps are yyyy-mm-dd-hh-mm-ss in UTC', () => {
  assert.equal(csvFileTimestamp(new Date('2025-03-09T07:05:03.999Z')), '2025-03-09-07-05-03');
  assert.equal(csvFileTimestamp(new Date('2024-12-31T23:59:59Z')), '2024-12-31-23-59-59');
});

async function* batchesOf(rows: string[][], size: number, log: string[]): AsyncGenerator<string[][]> {
  try {
    for (let i = 0; i < rows.length; i += size) {
      log.push(`read ${i}`);
      yield rows.slice(i, i + size);
    }
  } finally {
    log.push('closed');
  }
}

async function text(stream: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

test('a stream is the header and every batch\'s rows, in order', async () => {
  const rows = Array.from({ length: 7 }, (_, i) => [`r${i}`, i % 2 === 0 ? '=odd' : 'x,y']);
  const log: string[] = [];
  const stream = await csvStream(['Name', 'Value'], batchesOf(rows, 3, log));
  assert.deepEqual(log, ['read 0'], 'the first batch is read before the stream is handed over');
  const records = parseCsv(await text(stream));
  assert.deepEqual(records, [['Name', 'Value'], ...rows.map(([a, b]) => [a!, b === '=odd' ? "'=odd" : b!])]);
  assert.deepEqual(log, ['read 0', 'read 3', 'read 6', 'closed']);
});

test('with no rows, the file is the header alone', async () => {
  const stream = await csvStream(['Sno', 'Tx ID'], batchesOf([], 10, []));
  assert.equal(await text(stream), 'Sno,Tx ID\r\n');
});

test('a failing first batch fails the call itself, before anything is sent', async () => {
  async function* failing(): AsyncGenerator<string[][]> {
    throw new Error('database down');
  }
  await assert.rejects(csvStream(['A'], failing()), /database down/);
});

test('the stream reads batches only as they are consumed, and stops reading when destroyed', async () => {
  // Wide rows: each batch is about 100 kB, more than the stream buffers.
  const rows = Array.from({ length: 1000 }, (_, i) => [String(i), 'f'.repeat(1000)]);
  const log: string[] = [];
  const stream = await csvStream(['Sno', 'Hex'], batchesOf(rows, 100, log));
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  await iterator.next();
  // Reading one chunk does not make the stream run ahead through every batch.
  await new Promise((resolve) => setImmediate(resolve));
  const readBeforeDestroy = log.filter((l) => l.startsWith('read')).length;
  assert.ok(readBeforeDestroy < 10, `read ${readBeforeDestroy} of 10 batches after one chunk was consumed`);
  stream.destroy();
  await new Promise((resolve) => stream.once('close', resolve));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(log.at(-1), 'closed', 'the batches were closed');
  assert.equal(log.filter((l) => l.startsWith('read')).length, readBeforeDestroy, 'no batch was read after the stream was destroyed');
});

test('between batches the stream gives the event loop a turn, even when every batch is ready at once', async () => {
  // Batches that never wait for I/O, as PGlite's queries on this thread do not:
  // without a turn between them, nothing else on the thread would run until the file was done.
  const rows = Array.from({ length: 6 }, (_, i) => [`r${i}`]);
  const log: string[] = [];
  const stream = await csvStream(['A'], batchesOf(rows, 1, log));
  let ticking = true;
  const tick = () => {
    if (!ticking) return;
    log.push('tick');
    setImmediate(tick);
  };
  setImmediate(tick);
  assert.equal(parseCsv(await text(stream)).length, 7);
  ticking = false;
  const reads = log.flatMap((entry, index) => (entry.startsWith('read') ? [index] : []));
  assert.equal(reads.length, 6);
  for (let i = 1; i < reads.length; i++) {
    assert.ok(log.slice(reads[i - 1], reads[i]).includes('tick'), `no other work ran between ${log[reads[i - 1]!]} and ${log[reads[i]!]}: ${log.join(' ')}`);
  }
});
