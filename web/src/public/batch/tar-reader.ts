/**
 * A reader of tar archives (POSIX.1-1988 ustar, with the GNU long-name and
 * POSIX.1-2001 pax path extensions that GNU tar and bsdtar write for long
 * names). Tar is a sequence of 512-byte headers each followed by its file's
 * bytes padded to 512; nothing here inflates, so a tar can hold no more than
 * its own size.
 */

const BLOCK = 512;

export interface TarMember {
  path: string;
  bytes: Uint8Array;
}

export class TarError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TarError';
  }
}

const latin1 = new TextDecoder('latin1');
const utf8 = new TextDecoder('utf-8');

/** A NUL-terminated text field. */
function field(header: Uint8Array, offset: number, length: number, decoder = utf8): string {
  const slice = header.subarray(offset, offset + length);
  const end = slice.indexOf(0);
  return decoder.decode(end === -1 ? slice : slice.subarray(0, end));
}

/** A numeric field: octal text, or GNU's base-256 when the first byte's high bit is set. */
function numeric(header: Uint8Array, offset: number, length: number): number {
  if (header[offset]! & 0x80) {
    let value = header[offset]! & 0x7f;
    for (let i = 1; i < length; i++) value = value * 256 + header[offset + i]!;
    return value;
  }
  const text = field(header, offset, length, latin1).trim();
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) throw new TarError('it is not a tar archive (a header field is not a number)');
  return parseInt(text, 8);
}

/** The header's checksum is the sum of its bytes with the checksum field counted as spaces. */
function checksumMatches(header: Uint8Array): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i]!;
  return sum === numeric(header, 148, 8);
}

const SPACE = 0x20;
const EQUALS = 0x3d;

/**
 * The `path` record of a pax extended header ("<length> <key>=<value>\n"
 * records). A record's length counts bytes, so records are cut from the raw
 * bytes and only their values decoded: a UTF-8 name is fewer characters than
 * bytes.
 */
function paxPath(data: Uint8Array): string | undefined {
  let at = 0;
  let path: string | undefined;
  while (at < data.length) {
    const space = data.indexOf(SPACE, at);
    if (space === -1) break;
    const digits = latin1.decode(data.subarray(at, space));
    const length = /^[0-9]+$/.test(digits) ? Number(digits) : NaN;
    if (!Number.isSafeInteger(length) || length <= space - at + 1 || at + length > data.length) break;
    // The record without its length, and without the newline that ends it.
    const record = data.subarray(space + 1, at + length - 1);
    const eq = record.indexOf(EQUALS);
    if (eq !== -1 && utf8.decode(record.subarray(0, eq)) === 'path') path = utf8.decode(record.subarray(eq + 1));
    at += length;
  }
  return path;
}

const isZeroBlock = (block: Uint8Array) => block.every((b) => b === 0);

/**
 * The regular files of a tar archive, in archive order; directories are
 * skipped. Links and devices are refused (only plain files hold entries).
 */
export function readTar(data: Uint8Array): TarMember[] {
  const members: TarMember[] = [];
  let offset = 0;
  let longName: string | undefined;
  while (offset + BLOCK <= data.length) {
    const header = data.subarray(offset, offset + BLOCK);
    if (isZeroBlock(header)) break;
    if (!checksumMatches(header)) throw new TarError('it is not a tar archive, or it is damaged (a header checksum does not match)');
    const size = numeric(header, 124, 12);
    const type = String.fromCharCode(header[156]!);
    const start = offset + BLOCK;
    if (start + size > data.length) throw new TarError('it is cut short (a file runs past the end of the archive)');
    const body = data.subarray(start, start + size);
    offset = start + Math.ceil(size / BLOCK) * BLOCK;

    if (type === 'L') {
      longName = field(body, 0, body.length);
      continue;
    }
    if (type === 'x') {
      longName = paxPath(body) ?? longName;
      continue;
    }
    if (type === 'g' || type === 'K') continue;
    // Only POSIX ustar ("ustar\0") uses the prefix field; GNU's "ustar  " keeps times there.
    const posix = field(header, 257, 6, latin1) === 'ustar' && header[262] === 0;
    const prefix = posix ? field(header, 345, 155) : '';
    const path = longName ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
    longName = undefined;
    if (type === '5') continue;
    if (type !== '0' && type !== '\0' && type !== '7') throw new TarError(`${path} is not a plain file (links and devices are not read)`);
    members.push({ path, bytes: body });
  }
  return members;
}
