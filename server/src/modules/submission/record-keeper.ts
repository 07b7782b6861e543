import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Queryable } from '../../db/database.ts';
import { Semaphore } from '../../lib/semaphore.ts';
import type { Logger } from '../../lib/logger.ts';
import type { PortalTxidIndex } from './portal-txid-index.ts';
import { recordPackageSubmission, recordSubmission, type NewPackageSubmission, type NewSubmission } from './submission.repository.ts';

/**
 * Records of submissions the node has accepted. The transaction is in the
 * mempool whatever happens to the database, but its record (what it paid,
 * under which client code) must not be lost either: when the database cannot
 * take it, the record goes to an append-only spool file, fsync'd before the
 * user is told "success", and is replayed into the database later (at start,
 * periodically, and on close). Replays are idempotent.
 */

export type AcceptedRecord =
  | { kind: 'tx'; submission: NewSubmission }
  | { kind: 'package'; submission: NewPackageSubmission };

export interface RecordKeeper {
  /** Writes the record, or spools it durably when the database fails. Rejects only if both fail. */
  keep(record: AcceptedRecord): Promise<void>;
  /** Replays spooled records into the database; those that still fail stay spooled. */
  drain(): Promise<{ written: number; remaining: number }>;
  /** Whether a record naming `txid` waits in the spool, not yet written to the database. */
  spooled(txid: string): Promise<boolean>;
  /** Waits for every keep() under way, then one last replay. Whatever is left stays on disk for the next start. */
  close(): Promise<void>;
  /** Resolves once every keep() and tracked work under way has finished. */
  idle(): Promise<void>;
  /** Counts `work` (e.g. checks that lead to a keep()) as under way, so idle() and close() wait for it. */
  track<T>(work: Promise<T>): Promise<T>;
}

export interface RecordKeeperOptions {
  db: Queryable;
  spoolFile: string;
  log: Logger;
  /** How often spooled records are replayed while any exist. */
  retryMs?: number;
  /**
   * Told of each accepted record's txids before it is written
   * (portal-txid-index.ts): this instance's next status check finds them
   * without waiting for the database's notification.
   */
  portalTxids?: Pick<PortalTxidIndex, 'add'>;
}

async function write(db: Queryable, record: AcceptedRecord): Promise<void> {
  if (record.kind === 'package') {
    await recordPackageSubmission(db, record.submission);
    return;
  }
  await recordSubmission(db, record.submission);
}

export function createRecordKeeper(options: RecordKeeperOptions): RecordKeeper {
  const { db, spoolFile, log } = options;
  const retryMs = options.retryMs ?? 5_000;
  // Appends and the rewrite after a replay must not interleave, or lines are lost.
  const spoolLock = new Semaphore(1);
  let timer: NodeJS.Timeout | undefined;
  // keep() calls under way, so that close() never cuts one short.
  const underWay = new Set<Promise<void>>();

  async function exclusive<T>(work: () => Promise<T>): Promise<T> {
    await spoolLock.acquire();
    try {
      return await work();
    } finally {
      spoolLock.release();
    }
  }

  async function append(record: AcceptedRecord): Promise<void> {
    await exclusive(async () => {
      // Private to the portal's user: records name client codes and what they paid.
      await mkdir(path.dirname(spoolFile), { recursive: true, mode: 0o700 });
      const handle = await open(spoolFile, 'a', 0o600);
      try {
        await handle.appendFile(`${JSON.stringify(record)}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
    });
    schedule();
  }

  function schedule(): void {
    if (timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      drain().then(
        ({ remaining }) => {
          if (remaining > 0) schedule();
        },
        (error: unknown) => {
          log.error({ err: error }, 'Replaying spooled submission records failed');
          schedule();
        },
      );
    }, retryMs);
    timer.unref();
  }

  async function readSpool(): Promise<string[]> {
    try {
      return (await readFile(spoolFile, 'utf8')).split('\n').filter((line) => line.trim() !== '');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  async function drain(): Promise<{ written: number; remaining: number }> {
    return exclusive(async () => {
      const lines = await readSpool();
      if (lines.length === 0) return { written: 0, remaining: 0 };
      const left: string[] = [];
      let written = 0;
      for (const line of lines) {
        try {
          await write(db, JSON.parse(line) as AcceptedRecord);
          written++;
        } catch (error) {
          left.push(line);
          log.warn({ err: error }, 'A spooled submission record could not be written yet');
        }
      }
      // Replace the spool atomically: a crash mid-way leaves the old file, and
      // replaying it again is harmless (the writes are idempotent).
      if (left.length === 0) {
        await rm(spoolFile, { force: true });
      } else {
        const temporary = `${spoolFile}.tmp`;
        const handle = await open(temporary, 'w', 0o600);
        try {
          await handle.writeFile(left.map((l) => `${l}\n`).join(''));
          await handle.sync();
        } finally {
          await handle.close();
        }
        await rename(temporary, spoolFile);
      }
      if (written > 0) log.info({ written, remaining: left.length }, 'Replayed spooled submission records');
      return { written, remaining: left.length };
    });
  }

  async function spooled(txid: string): Promise<boolean> {
    // Under the lock: a replay under way has either written the record (and rewritten the spool) or not.
    const lines = await exclusive(readSpool);
    return lines.some((line) => {
      const record = JSON.parse(line) as AcceptedRecord;
      return record.kind === 'tx' ? record.submission.txid === txid : record.submission.txids.includes(txid);
    });
  }

  async function keep(record: AcceptedRecord): Promise<void> {
    options.portalTxids?.add(record.kind === 'tx' ? [record.submission.txid] : record.submission.txids);
    try {
      await write(db, record);
    } catch (error) {
      log.error({ err: error }, 'Recording an accepted submission failed; spooling it to disk');
      await append(record);
    }
  }

  async function idle(): Promise<void> {
    while (underWay.size > 0) await Promise.allSettled([...underWay]);
  }

  function track<T>(work: Promise<T>): Promise<T> {
    const tracked: Promise<void> = work.then(
      () => undefined,
      () => undefined, // the caller handles the outcome of `work`
    );
    underWay.add(tracked);
    void tracked.then(() => underWay.delete(tracked));
    return work;
  }

  return {
    keep: (record) => track(keep(record)),
    track,
    drain,
    spooled,
    idle,
    async close() {
      await idle();
      if (timer) clearTimeout(timer);
      timer = undefined;
      const { remaining } = await drain().catch(() => ({ remaining: -1 }));
      if (remaining !== 0) log.warn({ spoolFile }, 'Some submission records stay spooled until the next start');
    },
  };
}
