import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { deflateRawSync, gzipSync } from 'node:zlib';
import { zipSync } from 'fflate';
import { fileEntries, type BatchFile } from '../src/public/batch/batch-files.ts';
import { BatchInputError, MAX_ENTRIES, MAX_INPUT_BYTES, pastedEntries } from '../src/public/batch/batch-input.ts';
import {
  loadQueue,
  newRows,
  nextToSend,
  queueUnsent,
  reparseUnreachable,
  reparseUnsent,
  ROWS_KEY,
  saveItems,
  saveRows,
  unqueue,
  type QueueStorage,
} from '../src/public/batch/batch-queue.ts';
import { MAX_ZIP_RECORDS } from '../src/public/batch/archive-reader.ts';
import { retryAfterMs } from '../src/public/batch/retry-after.ts';
import { readTar } from '../src/public/batch/tar-reader.ts';
import { tarArchive } from '../../server/test/helpers/tar-writer.ts';

/**
 * The queue page's rules that need no browser (docs/behaviour.md#batch-page): one entry per line,
 * files and archives in name order, the bounds (1,000 entries, 64 MB, no
 * archive inside an archive), PSBT files, Retry-After, and what a reload
 * finds. Archives come from the system's own tar and from fflate's zip
 * writer, not from the reader under test.
 */

const file = (name: string, data: Buffer | Uint8Array | string): BatchFile => {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  return { name, size: bytes.length, bytes: async () => new Uint8Array(bytes) };
};

const refusal = async (run: () => unknown): Promise<string> => {
  try {
    await run();
  } catch (error) {
    assert.ok(error instanceof BatchInputError, `a BatchInputError, got ${String(error)}`);
    assert.match(error.message, /Nothing was added to the queue\.$/);
    return error.message;
  }
  assert.fail('the input was taken');
};

interface HandZipFile {
  name: string;
  /** 0 stored, 8 deflate. */
  method: number;
  /** The bytes as they sit in the archive. */
  stored: Buffer;
  /** The uncompressed size the headers claim. */
  declared: number;
}

/**
 * A zip written field by field (PKWARE APPNOTE 4.3), so that its central
 * directory can say what a zip writer never would: each file a local header
 * and its bytes, then one directory record per file, plus one record per
 * name in `alsoAs` pointing again at the first file's bytes.
 */
function handZip(files: HandZipFile[], alsoAs: string[] = []): Buffer {
  const locals: Buffer[] = [];
  const records: Buffer[] = [];
  const record = (f: HandZipFile, offset: number, name = f.name) => {
    const r = Buffer.alloc(46);
    r.writeUInt32LE(0x02014b50, 0);
    r.writeUInt16LE(20, 4);
    r.writeUInt16LE(20, 6);
    r.writeUInt16LE(f.method, 10);
    r.writeUInt32LE(f.stored.length, 20);
    r.writeUInt32LE(f.declared, 24);
    r.writeUInt16LE(Buffer.byteLength(name), 28);
    r.writeUInt32LE(offset, 42);
    return Buffer.concat([r, Buffer.from(name)]);
  };
  let offset = 0;
  for (const f of files) {
    const h = Buffer.alloc(30);
    h.writeUInt32LE(0x04034b50, 0);
    h.writeUInt16LE(20, 4);
    h.writeUInt16LE(f.method, 8);
    h.writeUInt32LE(f.stored.length, 18);
    h.writeUInt32LE(f.declared, 22);
    h.writeUInt16LE(Buffer.byteLength(f.name), 26);
    const local = Buffer.concat([h, Buffer.from(f.name), f.stored]);
    records.push(record(f, offset));
    locals.push(local);
    offset += local.length;
  }
  for (const name of alsoAs) records.push(record(files[0]!, 0, name));
  const directory = Buffer.concat(records);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(records.length, 8);
  end.writeUInt16LE(records.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** A PSBT's first bytes (BIP174 magic, then a global unsigned-tx key) as a wallet writes the binary form. */
const BINARY_PSBT = Buffer.from('70736274ff01007102000000', 'hex');

describe('pasted text: one entry per line', () => {
  test('blank lines and # comments are skipped; commas make a package; whitespace inside an entry is removed', () => {
    const entries = pastedEntries('aa\n\n  # a note\nbb , cc\n\r\n  dd ee  \r\n#ff\n, ,\ncHNidP8 BAAA\n', MAX_ENTRIES);
    assert.deepEqual(entries, [
      { source: 'line 1', items: ['aa'], isPackage: false },
      { source: 'line 4', items: ['bb', 'cc'], isPackage: true },
      { source: 'line 6', items: ['ddee'], isPackage: false },
      { source: 'line 9', items: ['cHNidP8BAAA'], isPackage: false },
    ]);
  });

  test('nothing but comments and blank lines is refused', async () => {
    assert.match(await refusal(() => pastedEntries('# only\n\n  \n', MAX_ENTRIES)), /^No transactions found/);
  });

  test('10,001 lines are refused whole; the queue\'s room counts what it already holds', async () => {
    const lines = Array.from({ length: 10_001 }, (_, i) => i.toString(16).padStart(8, '0')).join('\n');
    assert.equal(await refusal(() => pastedEntries(lines, MAX_ENTRIES)), 'That is 10,001 entries; the queue holds at most 1,000. Nothing was added to the queue.');
    const five = 'aa\nbb\ncc\ndd\nee';
    assert.equal(
      await refusal(() => pastedEntries(five, 3)),
      'That is 5 entries and 997 are already queued; the queue holds at most 1,000. Nothing was added to the queue.',
    );
    assert.equal(pastedEntries(five, 5).length, 5);
  });

  test('more than 64 MB of text is refused', async () => {
    const text = 'a'.repeat(MAX_INPUT_BYTES + 1);
    assert.equal(await refusal(() => pastedEntries(text, MAX_ENTRIES)), 'The text is 64.0 MB; at most 64 MB is read at once. Nothing was added to the queue.');
  });
});

describe('files', () => {
  test('.txt and .hex files are read line by line, all files in name order (numbers as numbers)', async () => {
    const entries = await fileEntries([file('10-last.txt', 'ee\n'), file('02-child.hex', 'cc\n# skip\ndd'), file('01-parent.hex', 'aa,bb')], MAX_ENTRIES);
    assert.deepEqual(
      entries.map((e) => [e.source, e.items]),
      [
        ['01-parent.hex line 1', ['aa', 'bb']],
        ['02-child.hex line 1', ['cc']],
        ['02-child.hex line 3', ['dd']],
        ['10-last.txt line 1', ['ee']],
      ],
    );
  });

  test('numbers in names are compared as numbers: 2 before 10', async () => {
    const entries = await fileEntries([file('10-c.hex', 'cc'), file('2-b.hex', 'bb'), file('1-a.hex', 'aa')], MAX_ENTRIES);
    assert.deepEqual(
      entries.map((e) => e.items[0]),
      ['aa', 'bb', 'cc'],
    );
  });

  test('a binary .psbt becomes base64 (the magic reads cHNidP8); a text one is used as it is, wrapped lines joined', async () => {
    const entries = await fileEntries([file('a.psbt', BINARY_PSBT), file('b.psbt', 'cHNidP8BAH\n ECAAAA\n')], MAX_ENTRIES);
    assert.deepEqual(
      entries.map((e) => e.items),
      [[BINARY_PSBT.toString('base64')], ['cHNidP8BAHECAAAA']],
    );
    assert.match(entries[0]!.items[0]!, /^cHNidP8/);
  });

  test('a file of any other kind is refused, naming it', async () => {
    assert.equal(
      await refusal(() => fileEntries([file('ok.txt', 'aa'), file('notes.pdf', 'x')], MAX_ENTRIES)),
      'notes.pdf is not a .txt, .hex, .psbt, .zip, .tar, .tar.gz or .tgz file. Nothing was added to the queue.',
    );
  });

  test('a 70 MB file is refused before it is read', async () => {
    const huge: BatchFile = {
      name: 'big.txt',
      size: 70 * 1024 * 1024,
      bytes: async () => assert.fail('the file was read'),
    };
    assert.equal(await refusal(() => fileEntries([huge], MAX_ENTRIES)), 'big.txt is 70.0 MB; at most 64 MB is read at once. Nothing was added to the queue.');
  });

  test('more entries across files than the queue has room for are refused whole', async () => {
    const half = Array.from({ length: 600 }, (_, i) => `a${i}`).join('\n');
    assert.equal(
      await refusal(() => fileEntries([file('a.txt', half), file('b.txt', half)], MAX_ENTRIES)),
      'That is 1,200 entries; the queue holds at most 1,000. Nothing was added to the queue.',
    );
  });
});

describe('archives', () => {
  const work = () => mkdtempSync(path.join(tmpdir(), 'batch-archive-'));

  test('a .tar.gz made by tar: members in name order, directories skipped, long and prefixed paths read', async () => {
    const dir = work();
    try {
      const deep = path.join('d'.repeat(60), 'e'.repeat(60));
      mkdirSync(path.join(dir, 'src', deep), { recursive: true });
      writeFileSync(path.join(dir, 'src', '02-child.hex'), 'bb\n');
      writeFileSync(path.join(dir, 'src', '01-parent.hex'), 'aa\n');
      writeFileSync(path.join(dir, 'src', deep, '03-far.txt'), 'cc\n');
      for (const format of ['gnu', 'ustar', 'pax']) {
        const archive = path.join(dir, `txs-${format}.tar.gz`);
        execFileSync('tar', ['--format', format, '-czf', archive, '-C', path.join(dir, 'src'), '.']);
        const entries = await fileEntries([file(`txs.tar.gz`, readFileSync(archive))], MAX_ENTRIES);
        assert.deepEqual(
          entries.map((e) => [e.source, e.items[0]]),
          [
            ['txs.tar.gz/./01-parent.hex line 1', 'aa'],
            ['txs.tar.gz/./02-child.hex line 1', 'bb'],
            [`txs.tar.gz/./${deep}/03-far.txt line 1`, 'cc'],
          ],
          format,
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the tar reader reads what the test writer writes, and refuses a damaged header', () => {
    const tar = tarArchive([
      { name: 'a.hex', data: 'aa' },
      { name: 'b.hex', data: Buffer.alloc(1000, 0x62) },
    ]);
    const members = readTar(new Uint8Array(tar));
    assert.deepEqual(
      members.map((m) => [m.path, m.bytes.length]),
      [
        ['a.hex', 2],
        ['b.hex', 1000],
      ],
    );
    tar[0] = 0x7a;
    assert.throws(() => readTar(new Uint8Array(tar)), /checksum/);
  });

  test('a .zip (fflate\'s writer) and a plain .tar', async () => {
    const zip = zipSync({ 'b/02.hex': Buffer.from('bb'), '01.txt': Buffer.from('aa\n'), '__MACOSX/._01.txt': Buffer.from('junk') });
    const tar = tarArchive([{ name: '03.psbt', data: BINARY_PSBT }]);
    const entries = await fileEntries([file('x.zip', zip), file('y.tar', tar)], MAX_ENTRIES);
    assert.deepEqual(
      entries.map((e) => [e.source, e.items[0]]),
      [
        ['x.zip/01.txt line 1', 'aa'],
        ['x.zip/b/02.hex line 1', 'bb'],
        ['y.tar/03.psbt', BINARY_PSBT.toString('base64')],
      ],
    );
  });

  test('an archive bomb is refused: a .tar.gz and a .zip that inflate past 64 MB', async () => {
    const zeros = Buffer.alloc(MAX_INPUT_BYTES + 1024 * 1024);
    const bomb = gzipSync(tarArchive([{ name: 'zeros.txt', data: zeros }]));
    assert.ok(bomb.length < 1024 * 1024, 'small on the wire');
    assert.equal(
      await refusal(() => fileEntries([file('bomb.tar.gz', bomb)], MAX_ENTRIES)),
      'bomb.tar.gz unpacks to more than 64 MB; at most 64 MB is read at once. Nothing was added to the queue.',
    );
    const zipBomb = zipSync({ 'zeros.txt': zeros }, { level: 9 });
    assert.match(await refusal(() => fileEntries([file('bomb.zip', zipBomb)], MAX_ENTRIES)), /^bomb\.zip unpacks to more than 64 MB/);
  });

  test('a zip whose directory claims more than 64 MB is refused before anything is inflated', async () => {
    const zip = Buffer.from(zipSync({ 'a.hex': Buffer.from('aa\n') }));
    // The central directory entry (PK\x01\x02) keeps the uncompressed size at offset 24.
    const central = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    zip.writeUInt32LE(0x7fffffff, central + 24);
    assert.match(await refusal(() => fileEntries([file('claims.zip', zip)], MAX_ENTRIES)), /^claims\.zip unpacks to more than 64 MB/);
  });

  test('a pax header\'s path with non-ASCII letters is read whole (record lengths count bytes, not characters)', async () => {
    const dir = work();
    try {
      mkdirSync(path.join(dir, 'src'));
      writeFileSync(path.join(dir, 'src', '01-é.hex'), 'aa\n');
      writeFileSync(path.join(dir, 'src', '02-naïve-ünïcödé.txt'), 'bb\n');
      const archive = path.join(dir, 'accents.tar');
      execFileSync('tar', ['--format', 'pax', '-cf', archive, '-C', path.join(dir, 'src'), '.']);
      const entries = await fileEntries([file('accents.tar', readFileSync(archive))], MAX_ENTRIES);
      assert.deepEqual(
        entries.map((e) => [e.source, e.items[0]]),
        [
          ['accents.tar/./01-é.hex line 1', 'aa'],
          ['accents.tar/./02-naïve-ünïcödé.txt line 1', 'bb'],
        ],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a zip whose directory understates what its files hold is refused: fflate reads by the compressed size it is given', async () => {
    const lines = Buffer.from('aa\n'.repeat(300));
    // A stored file declaring 0 bytes: fflate would copy all it holds (the 8 MB listed 50,000 times attack, in small).
    const storedZero = handZip([{ name: 'a.hex', method: 0, stored: lines, declared: 0 }]);
    assert.equal(
      await refusal(() => fileEntries([file('zero.zip', storedZero)], MAX_ENTRIES)),
      'zero.zip could not be unpacked: it is damaged (a.hex holds more bytes than its size says). Nothing was added to the queue.',
    );
    // A deflate file declaring 1 byte but holding far more compressed data than 1 byte could ever deflate to.
    const deflated = handZip([{ name: 'b.hex', method: 8, stored: deflateRawSync(randomBytes(4096), { level: 0 }), declared: 1 }]);
    assert.equal(
      await refusal(() => fileEntries([file('deflate.zip', deflated)], MAX_ENTRIES)),
      'deflate.zip could not be unpacked: it is damaged (b.hex holds more bytes than its size says). Nothing was added to the queue.',
    );
    // Deflate's own overhead (incompressible data grows a few bytes) is not refused.
    const noise = randomBytes(70_000).toString('hex').slice(0, 70_000);
    const honest = handZip([{ name: 'c.hex', method: 8, stored: deflateRawSync(Buffer.from(noise), { level: 0 }), declared: noise.length }]);
    assert.deepEqual(
      (await fileEntries([file('honest.zip', honest)], MAX_ENTRIES)).map((e) => e.items[0]),
      [noise],
    );
  });

  test('a zip listing the same bytes many times is refused: its files add up to more than the archive', async () => {
    const line = Buffer.from(`aa${'b'.repeat(2998)}\n`);
    const names = Array.from({ length: 10 }, (_, i) => `${String(i).padStart(2, '0')}.hex`);
    const zip = handZip([{ name: names[0]!, method: 0, stored: line, declared: line.length }], names.slice(1));
    assert.equal(
      await refusal(() => fileEntries([file('again.zip', zip)], MAX_ENTRIES)),
      'again.zip could not be unpacked: it is damaged (its files add up to more than the archive itself). Nothing was added to the queue.',
    );
  });

  test(`a zip listing more than ${MAX_ZIP_RECORDS.toLocaleString('en-US')} files and folders is refused before they are read`, async () => {
    const empties = Array.from({ length: MAX_ZIP_RECORDS }, (_, i) => ({ name: i % 2 ? `empty/${i}.hex` : `folder-${i}/`, method: 0, stored: Buffer.alloc(0), declared: 0 }));
    const zip = handZip([...empties, { name: 'z.hex', method: 0, stored: Buffer.from('aa\n'), declared: 3 }]);
    assert.equal(
      await refusal(() => fileEntries([file('many.zip', zip)], MAX_ENTRIES)),
      `many.zip could not be unpacked: it lists more than ${MAX_ZIP_RECORDS.toLocaleString('en-US')} files and folders. Nothing was added to the queue.`,
    );
    // As many as the bound, folders among them, are read.
    const atBound = handZip([...empties.slice(1), { name: 'z.hex', method: 0, stored: Buffer.from('aa\n'), declared: 3 }]);
    assert.deepEqual((await fileEntries([file('bound.zip', atBound)], MAX_ENTRIES)).map((e) => e.source), ['bound.zip/z.hex line 1']);
  });

  test('an archive inside an archive is refused, and so is a damaged archive', async () => {
    const inner = zipSync({ 'a.hex': Buffer.from('aa') });
    const outer = gzipSync(tarArchive([{ name: '01.hex', data: 'aa' }, { name: 'inner.zip', data: Buffer.from(inner) }]));
    assert.equal(
      await refusal(() => fileEntries([file('outer.tgz', outer)], MAX_ENTRIES)),
      'outer.tgz holds another archive (inner.zip); archives inside archives are not opened. Nothing was added to the queue.',
    );
    assert.equal(
      await refusal(() => fileEntries([file('broken.tar.gz', Buffer.from('not gzip at all'))], MAX_ENTRIES)),
      'broken.tar.gz could not be unpacked: it is not a gzip file, or it is damaged. Nothing was added to the queue.',
    );
    assert.match(await refusal(() => fileEntries([file('odd.zip', tarArchive([{ name: 'a.txt', data: 'aa' }]))], MAX_ENTRIES)), /^odd\.zip could not be unpacked/);
  });
});

describe('the 429 wait (RFC 9110 Retry-After)', () => {
  test('seconds, or an HTTP date; something else waits a few seconds', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(retryAfterMs('7', now), 7000);
    assert.equal(retryAfterMs('Thu, 01 Jan 2026 00:00:30 GMT', now), 30_000);
    assert.equal(retryAfterMs('soon', now), 5000);
    assert.equal(retryAfterMs(null, now), 5000);
  });
});

describe('the queue\'s turns', () => {
  const three = () =>
    newRows([
      { source: 'line 1', items: ['aa'], isPackage: false },
      { source: 'line 2', items: ['bb'], isPackage: false },
      { source: 'line 3', items: ['cc'], isPackage: false },
    ]);

  test('Send all queues only rows not sent yet, and the next to send is the first queued in queue order', () => {
    const rows = three();
    rows[0]!.send = { state: 'accepted', txids: ['t'] };
    rows[1]!.send = { state: 'refused', message: 'no' };
    const queued = queueUnsent(rows);
    assert.deepEqual(
      queued.map((r) => r.send.state),
      ['accepted', 'refused', 'queued'],
    );
    assert.equal(nextToSend(queued)?.source, 'line 3');
    assert.deepEqual(
      unqueue(queued).map((r) => r.send.state),
      ['accepted', 'refused', 'unsent'],
      'Stop puts waiting rows back, results stay',
    );
    assert.equal(nextToSend(unqueue(queued)), undefined);
  });

  test('a new client code decodes again every row not accepted yet', () => {
    const rows = three().map((r) => ({ ...r, parse: { state: 'done' as const, txs: [] } }));
    rows[0]!.send = { state: 'accepted', txids: ['t'] };
    assert.deepEqual(
      reparseUnsent(rows).map((r) => r.parse.state),
      ['done', 'pending', 'pending'],
    );
  });

  test('only decodes that failed for want of the server are tried again; a refusal stays', () => {
    const rows = three();
    rows[0]!.parse = { state: 'failed', message: 'out of reach', unreachable: true };
    rows[1]!.parse = { state: 'failed', message: 'Transaction hex is not valid.' };
    rows[2]!.parse = { state: 'done', txs: [] };
    assert.deepEqual(
      reparseUnreachable(rows).map((r) => r.parse.state),
      ['pending', 'failed', 'done'],
    );
  });
});

describe('what a reload finds', () => {
  const memory = (): QueueStorage & { map: Map<string, string> } => {
    const map = new Map<string, string>();
    return { map, getItem: (k) => map.get(k) ?? null, setItem: (k, v) => void map.set(k, v), removeItem: (k) => void map.delete(k) };
  };

  test('rows, their entries and results come back; a send cut short comes back as not sent', () => {
    const storage = memory();
    const rows = newRows([
      { source: 'line 1', items: ['aa'], isPackage: false },
      { source: 'line 2', items: ['bb', 'cc'], isPackage: true },
      { source: 'line 3', items: ['dd'], isPackage: false },
    ]);
    rows[0]!.send = { state: 'accepted', txids: ['t1'] };
    rows[1]!.send = { state: 'waiting', until: 1 };
    rows[2]!.parse = { state: 'done', txs: [{ message: 'bad', error: true }] };
    saveItems(storage, rows);
    saveRows(storage, { rows, clientCode: 'CODE' });
    assert.ok(!storage.map.get(ROWS_KEY)!.includes('"bb"'), 'entries are not rewritten with every change of state');
    const back = loadQueue(storage);
    assert.equal(back.clientCode, 'CODE');
    assert.deepEqual(back.rows, [rows[0], { ...rows[1], send: { state: 'unsent' } }, rows[2]]);
  });

  test('nothing stored, or something unreadable, is an empty queue', () => {
    const storage = memory();
    assert.deepEqual(loadQueue(storage), { rows: [], clientCode: '' });
    storage.setItem(ROWS_KEY, '{not json');
    assert.deepEqual(loadQueue(storage), { rows: [], clientCode: '' });
    storage.setItem(ROWS_KEY, JSON.stringify({ rows: [{ id: 1 }] }));
    assert.deepEqual(loadQueue(storage), { rows: [], clientCode: '' });
  });
});
