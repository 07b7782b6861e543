import { Gunzip, unzipSync } from 'fflate';
import { readTar, TarError, type TarMember } from './tar-reader.ts';

/**
 * Archives unpacked in the browser, bounded (issue 19): this module (and
 * fflate) is loaded only when a file is an archive. Nothing is inflated past
 * the byte budget: a zip's members are inflated into buffers of their
 * declared sizes, which are summed first; a gzip stream is fed in small
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

function unzipBounded(data: Uint8Array, budget: number): ArchiveMember[] {
  let declared = 0;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(data, {
      filter: (file) => {
        if (file.name.endsWith('/')) return false;
        declared += file.originalSize;
        if (declared > budget) throw new ArchiveTooLargeError();
        return true;
      },
    });
  } catch (error) {
    if (error instanceof ArchiveTooLargeError) throw error;
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
