/**
 * Many transactions at once (docs/behaviour.md#batch-page): one entry per line, blank lines and
 * lines starting with '#' skipped, commas within a line a package (parents
 * first, as in the single-paste box). What an entry holds (a raw transaction
 * hex, or a PSBT as base64 or hex) is for the server to recognise; the
 * browser only removes whitespace, which is meaningful in neither encoding.
 */

/** The queue holds at most this many entries (rows), whatever they came from. */
export const MAX_ENTRIES = 1_000;
/** Text and files read in one go, archives counted unpacked. */
export const MAX_INPUT_BYTES = 64 * 1024 * 1024;
export const MAX_INPUT_LABEL = '64 MB';

/** One queue row: a single transaction, or a package sent as one. */
export interface BatchEntry {
  /** Where it came from, for the user: 'line 3', 'txs.zip/02-child.hex', 'a.txt line 2'. */
  source: string;
  items: string[];
  isPackage: boolean;
}

/** Input the queue will not take, with the reason in the user's words. */
export class BatchInputError extends Error {
  constructor(message: string) {
    super(`${message} Nothing was added to the queue.`);
    this.name = 'BatchInputError';
  }
}

const integer = new Intl.NumberFormat('en-US');
export const formatCount = (n: number) => integer.format(n);

export function formatMegabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** The item as sent: whitespace (a hex or base64 wrapped over lines by the tool it came from) removed. */
export function normaliseItem(item: string): string {
  return item.replace(/\s+/g, '');
}

const LINE_BREAK = /\r?\n|\r/;

/** A line that holds an entry: not blank, not a '#' comment, not commas alone. */
function isEntryLine(trimmed: string): boolean {
  return trimmed !== '' && !trimmed.startsWith('#') && /[^\s,]/.test(trimmed);
}

/** One line as an entry, or null for a blank or comment line. */
export function lineEntry(line: string, source: string): BatchEntry | null {
  const trimmed = line.trim();
  if (!isEntryLine(trimmed)) return null;
  const isPackage = trimmed.includes(',');
  const items = (isPackage ? trimmed.split(',') : [trimmed]).map(normaliseItem).filter((item) => item !== '');
  return { source, items, isPackage };
}

/** How many entries a text holds, counted before any is built: a refused 10,001-line paste builds nothing. */
export function countTextEntries(text: string): number {
  let count = 0;
  for (const line of text.split(LINE_BREAK)) if (isEntryLine(line.trim())) count++;
  return count;
}

/** The entries of a text, line by line; `label` names the file it came from ('' for the box). */
export function textEntries(text: string, label: string): BatchEntry[] {
  const entries: BatchEntry[] = [];
  const lines = text.split(LINE_BREAK);
  for (let i = 0; i < lines.length; i++) {
    const entry = lineEntry(lines[i]!, label ? `${label} line ${i + 1}` : `line ${i + 1}`);
    if (entry) entries.push(entry);
  }
  return entries;
}

/** The refusal for more entries than the queue has room for. */
export function tooManyEntries(count: number, room: number): BatchInputError {
  const queued = MAX_ENTRIES - room;
  const already = queued > 0 ? ` and ${formatCount(queued)} are already queued` : '';
  return new BatchInputError(`That is ${formatCount(count)} entries${already}; the queue holds at most ${formatCount(MAX_ENTRIES)}.`);
}

/** The refusal for input beyond the size bound; `subject` names it with its verb ('The text is', 'The files come to'). */
export function tooLarge(subject: string, bytes: number): BatchInputError {
  return new BatchInputError(`${subject} ${formatMegabytes(bytes)}; at most ${MAX_INPUT_LABEL} is read at once.`);
}

export const noEntries = () => new BatchInputError('No transactions found: put one per line (blank lines and lines starting with # are skipped).');

/** UTF-8 size of pasted text, without encoding it (a 64 MB paste need not be copied to be measured). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code < 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** The pasted box as queue entries; throws BatchInputError for input the queue will not take. */
export function pastedEntries(text: string, room: number): BatchEntry[] {
  const bytes = utf8Length(text);
  if (bytes > MAX_INPUT_BYTES) throw tooLarge('The text is', bytes);
  const count = countTextEntries(text);
  if (count > room) throw tooManyEntries(count, room);
  const entries = textEntries(text, '');
  if (entries.length === 0) throw noEntries();
  return entries;
}
