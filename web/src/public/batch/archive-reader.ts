import { Gunzip, unzipSync } from 'fflate';
import { formatCount, MAX_ENTRIES } from './batch-input.ts';
import { readTar, TarError, type TarMember } from './tar-reader.ts';

/**
 * Archives unpacked in the browser, bounded (docs/behaviour.md#batch-page): this module (and
 * fflate) is loaded only when a file is an archive. Nothing is inflated past
 * the byte budget: a zip's members are inflated into buffers of their
 * declared sizes, which are summed first (and each held to the bytes it
 * really has in the archive); a gzip stream is fed in small
 * slices, so one slice can inflate to at most about a thousand times its size
 * (deflate's ceiling) before the running total is checked.
 */

export type ArchiveKind = 'zip' | 'tar' | 'tar.gz';

export interface ArchiveMember {
  path: string;
  bytes: Uint8Array;
}

/** The archive unpacks to more than the budget: an archive bomb, or just too much. */
export class ArchiveTooLargeError extends Error {
  constructor() {
    super('archive unpacks past the budget');
    this.name = 'ArchiveTooLargeError';
  }
}

/** The archive could not be read; the message says why, in words for the user. */
export class ArchiveReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArchiveReadError';
  }
}

/** Compressed bytes given to the gzip inflater at a time. */
const GZIP_SLICE = 16 * 1024;

/** The bytes a gzip stream inflates to, refused as soon as they pass `budget`. */
export function gunzipBounded(data: Uint8Array, budget: number): Uint8Array {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const inflater = new Gunzip((chunk) => {
    total += chunk.length;
    if (total > budget) throw new ArchiveTooLargeError();
    chunks.push(chunk);
  });
  try {
    for (let at = 0; at < data.length; at += GZIP_SLICE) {
      const end = Math.min(at + GZIP_SLICE, data.length);
      inflater.push(data.subarray(at, end), end === data.length);
    }
  } catch (error) {
    if (error instanceof ArchiveTooLargeError) throw error;
    throw new ArchiveReadError('it is not a gzip file, or it is damaged');
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/**
 * Records a zip's central directory may list, directories included: the queue
 * takes at most MAX_ENTRIES entries, and a few thousand records is room for
 * those files with their folders and platform metadata.
 */
export const MAX_ZIP_RECORDS = 4 * MAX_ENTRIES;

/**
 * Deflate never grows data by more than a few bytes per 64 KB block (its
 * stored blocks); more than this over the declared size is not a real entry.
 */
const deflateCeiling = (declared: number) => declared + Math.ceil(declared / 100) + 64;

/**
 * fflate trusts the central directory: a stored entry is copied at its
 * compressed size whatever size it declares, and a deflate entry is decoded
 * through all of its compressed bytes. So each record's compressed size is
 * held to its declared size, and all of them together to the archive's own
 * length (records pointing at the same bytes over and over pass neither).
 */
function unzipBounded(data: Uint8Array, budget: number): ArchiveMember[] {
  let declared = 0;
  let compressed = 0;
  let records = 0;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(data, {
      filter: (file) => {
        records++;
        if (records > MAX_ZIP_RECORDS) throw new ArchiveReadError(`it lists more than ${formatCount(MAX_ZIP_RECORDS)} files and folders`);
        if (file.name.endsWith('/')) return false;
        declared += file.originalSize;
        if (declared > budget) throw new ArchiveTooLargeError();
        const sizeFits = file.compression === 0 ? file.size === file.originalSize : file.size <= deflateCeiling(file.originalSize);
        if (!sizeFits) throw new ArchiveReadError(`it is damaged (${file.name} holds more bytes than its size says)`);
        compressed += file.size;
        if (compressed > data.length) throw new ArchiveReadError('it is damaged (its files add up to more than the archive itself)');
        return true;
      },
    });
  } catch (error) {
    if (error instanceof ArchiveTooLargeError || error instanceof ArchiveReadError) throw error;
    throw new ArchiveReadError('it is not a zip file, or it is damaged');
  }
  return Object.entries(files).map(([path, bytes]) => ({ path, bytes }));
}

function untar(data: Uint8Array): TarMember[] {
  try {
    return readTar(data);
  } catch (error) {
    if (error instanceof TarError) throw new ArchiveReadError(error.message);
    throw error;
  }
}

/** The files of an archive with at most `budget` bytes among them; directories left out. */
export function unpackArchive(kind: ArchiveKind, data: Uint8Array, budget: number): ArchiveMember[] {
  let members: ArchiveMember[];
  if (kind === 'zip') members = unzipBounded(data, budget);
  else members = untar(kind === 'tar.gz' ? gunzipBounded(data, budget) : data);
  const total = members.reduce((sum, m) => sum + m.bytes.length, 0);
  if (total > budget) throw new ArchiveTooLargeError();
  return members;
}
