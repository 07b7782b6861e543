import type { ArchiveKind, ArchiveMember } from './archive-reader.ts';
import {
  BatchInputError,
  countTextEntries,
  MAX_INPUT_BYTES,
  MAX_INPUT_LABEL,
  noEntries,
  normaliseItem,
  textEntries,
  tooLarge,
  tooManyEntries,
  type BatchEntry,
} from './batch-input.ts';

/**
 * Files picked or dropped (docs/behaviour.md#batch-page): .txt and .hex hold one entry per line;
 * a .psbt holds one PSBT, binary or text; .zip, .tar and .tar.gz/.tgz
 * archives hold such files, never other archives. Entries are ordered by file
 * name (numbers compared as numbers), so 01-parent, 02-child and 10-last
 * submit in that order. Everything is checked before anything is queued.
 */

/** A file as the page has it; `bytes` is read only once the sizes pass. */
export interface BatchFile {
  name: string;
  size: number;
  bytes(): Promise<Uint8Array>;
}

type LeafKind = 'text' | 'psbt';
type FileKind = LeafKind | ArchiveKind;

const ACCEPTED = '.txt, .hex, .psbt, .zip, .tar, .tar.gz or .tgz';
/** For the file picker. */
export const FILE_ACCEPT = '.txt,.hex,.psbt,.zip,.tar,.gz,.tgz';

export function fileKind(name: string): FileKind | undefined {
  const lower = name.toLowerCase();
  if (lower.endsWith('.tar.gz') || lower.endsWith('.tgz')) return 'tar.gz';
  if (lower.endsWith('.tar')) return 'tar';
  if (lower.endsWith('.zip')) return 'zip';
  if (lower.endsWith('.txt') || lower.endsWith('.hex')) return 'text';
  if (lower.endsWith('.psbt')) return 'psbt';
  return undefined;
}

/** Any compressed or archive file, recognised so that one inside an archive is named as such. */
const ARCHIVE_NAME = /\.(zip|tar|tgz|gz|bz2|xz|zst|7z|rar)$/i;

/** macOS writes resource forks into zips it makes; they hold no entries. */
const isPlatformMetadata = (path: string) => path.startsWith('__MACOSX/') || path.split('/').pop()!.startsWith('._');

/** "psbt" then 0xff (BIP174): the binary form. */
const PSBT_MAGIC = [0x70, 0x73, 0x62, 0x74, 0xff];
const isBinaryPsbt = (bytes: Uint8Array) => PSBT_MAGIC.every((b, i) => bytes[i] === b);

export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  const CHUNK = 0x8000;
  for (let at = 0; at < bytes.length; at += CHUNK) binary += String.fromCharCode(...bytes.subarray(at, at + CHUNK));
  return btoa(binary);
}

interface Leaf {
  label: string;
  kind: LeafKind;
  bytes: Uint8Array;
}

const byName = new Intl.Collator('en', { numeric: true, sensitivity: 'variant' });
const utf8 = new TextDecoder('utf-8');

/** A .psbt file's one entry: a binary PSBT as base64 (the form wallets export as text), a text one as it is. */
function psbtEntry(leaf: Leaf): BatchEntry[] {
  const item = isBinaryPsbt(leaf.bytes) ? toBase64(leaf.bytes) : normaliseItem(utf8.decode(leaf.bytes));
  return item === '' ? [] : [{ source: leaf.label, items: [item], isPackage: false }];
}

async function loadArchiveReader() {
  // Archive code (and fflate) loads only when an archive is dropped: the public pages' first load stays small.
  return import('./archive-reader.ts');
}

/** The files inside one archive, as leaves; nested archives and other files refused. */
async function archiveLeaves(name: string, kind: ArchiveKind, data: Uint8Array, budget: number, together: boolean): Promise<Leaf[]> {
  const reader = await loadArchiveReader();
  let members: ArchiveMember[];
  try {
    members = reader.unpackArchive(kind, data, budget);
  } catch (error) {
    if (error instanceof reader.ArchiveTooLargeError) {
      throw new BatchInputError(`${name} unpacks to more than ${together ? `the ${MAX_INPUT_LABEL} left with the other files` : MAX_INPUT_LABEL}; at most ${MAX_INPUT_LABEL} is read at once.`);
    }
    if (error instanceof reader.ArchiveReadError) throw new BatchInputError(`${name} could not be unpacked: ${error.message}.`);
    throw error;
  }
  const leaves: Leaf[] = [];
  for (const member of members) {
    if (isPlatformMetadata(member.path)) continue;
    const label = `${name}/${member.path}`;
    if (ARCHIVE_NAME.test(member.path)) throw new BatchInputError(`${name} holds another archive (${member.path}); archives inside archives are not opened.`);
    const memberKind = fileKind(member.path);
    if (memberKind !== 'text' && memberKind !== 'psbt') throw new BatchInputError(`${label} is not a .txt, .hex or .psbt file.`);
    leaves.push({ label, kind: memberKind, bytes: member.bytes });
  }
  return leaves;
}

/**
 * The queue entries of picked or dropped files, or a BatchInputError naming
 * what is wrong (then nothing is queued). `room` is how many entries the
 * queue can still take.
 */
export async function fileEntries(files: BatchFile[], room: number): Promise<BatchEntry[]> {
  const kinds = files.map((file) => {
    const kind = fileKind(file.name);
    if (!kind) throw new BatchInputError(`${file.name} is not a ${ACCEPTED} file.`);
    return kind;
  });
  const totalSize = files.reduce((sum, file) => sum + file.size, 0);
  if (totalSize > MAX_INPUT_BYTES) throw tooLarge(files.length === 1 ? `${files[0]!.name} is` : 'The files come to', totalSize);

  // Plain files count as they are; archives count as they unpack, out of what is left.
  let used = files.reduce((sum, file, i) => (kinds[i] === 'text' || kinds[i] === 'psbt' ? sum + file.size : sum), 0);
  const leaves: Leaf[] = [];
  for (const [i, file] of files.entries()) {
    const kind = kinds[i]!;
    const bytes = await file.bytes();
    if (kind === 'text' || kind === 'psbt') {
      leaves.push({ label: file.name, kind, bytes });
      continue;
    }
    const inside = await archiveLeaves(file.name, kind, bytes, MAX_INPUT_BYTES - used, files.length > 1);
    used += inside.reduce((sum, leaf) => sum + leaf.bytes.length, 0);
    leaves.push(...inside);
  }
  leaves.sort((a, b) => byName.compare(a.label, b.label));

  const texts = leaves.map((leaf) => (leaf.kind === 'text' ? utf8.decode(leaf.bytes) : ''));
  const count = leaves.reduce((sum, leaf, i) => sum + (leaf.kind === 'text' ? countTextEntries(texts[i]!) : 1), 0);
  if (count > room) throw tooManyEntries(count, room);
  const entries = leaves.flatMap((leaf, i) => (leaf.kind === 'text' ? textEntries(texts[i]!, leaf.label) : psbtEntry(leaf)));
  if (entries.length === 0) throw noEntries();
  return entries;
}
