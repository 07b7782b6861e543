import { useEffect, useState, type DragEvent, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useInfo } from '../../api/getinfo.ts';
import { feeRateUp } from '../../lib/format.ts';
import { FILE_ACCEPT, fileEntries, type BatchFile } from './batch-files.ts';
import { BatchInputError, formatCount, MAX_ENTRIES, pastedEntries, type BatchEntry } from './batch-input.ts';
import { contradicted, type KnownMinimum } from './batch-queue.ts';
import { BatchRow, secondsUntil } from './batch-row.tsx';
import { useBatchQueue } from './use-batch-queue.ts';
import './batch.css';

const INFO_FAILURE = 'Unable to connect to Slipstream server. Please try again in 60 seconds.';
/** Quiet time after the last keystroke in the client code before the queue is decoded again with it. */
const CLIENT_CODE_DEBOUNCE_MS = 600;

type Note = { kind: 'error' | 'added'; text: string } | null;

const asBatchFile = (file: File): BatchFile => ({ name: file.name, size: file.size, bytes: async () => new Uint8Array(await file.arrayBuffer()) });

/** Ticks once a second while `active`, for countdowns. */
function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const tick = () => setNow(Date.now());
    const first = setTimeout(tick, 0);
    const timer = setInterval(tick, 1000);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  }, [active]);
  return now;
}

/**
 * The newest minimum getinfo gave, and when it first said it: a refetch
 * bringing the same rate is not news (rows decoded since keep the server's
 * verdict), a different one is.
 */
function useKnownMinimum(rate: number | undefined, updatedAt: number): KnownMinimum | undefined {
  const [known, setKnown] = useState<KnownMinimum | undefined>(undefined);
  // Adjusted while drawing (React's pattern for state derived from props): the rows see the new minimum at once.
  if (rate !== undefined && known?.rate !== rate) {
    const newer = { rate, at: updatedAt };
    setKnown(newer);
    return newer;
  }
  return known;
}

/**
 * Many transactions at once (docs/behaviour.md#batch-page): pasted one per line, or picked or
 * dropped as files and archives, into a queue that decodes each row, sends
 * them in order one at a time when asked, and keeps every row and its result
 * until the user removes it (across reloads, for the browser session).
 */
export default function BatchPage() {
  const info = useInfo();
  const queue = useBatchQueue();
  const [text, setText] = useState('');
  const [note, setNote] = useState<Note>(null);
  const [reading, setReading] = useState(false);
  const [dragging, setDragging] = useState(false);
  const [code, setCode] = useState(queue.clientCode);
  const now = useNow(queue.waitUntil !== null);
  const room = MAX_ENTRIES - queue.rows.length;
  const { setClientCode } = queue;

  useEffect(() => {
    const timer = setTimeout(() => setClientCode(code), CLIENT_CODE_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [code, setClientCode]);

  function added(entries: BatchEntry[]) {
    queue.add(entries);
    setNote({ kind: 'added', text: `Added ${formatCount(entries.length)} ${entries.length === 1 ? 'entry' : 'entries'} to the queue.` });
  }

  function refused(error: unknown) {
    if (!(error instanceof BatchInputError)) throw error;
    setNote({ kind: 'error', text: error.message });
  }

  function addText(event: FormEvent) {
    event.preventDefault();
    try {
      added(pastedEntries(text, room));
      setText('');
    } catch (error) {
      refused(error);
    }
  }

  async function addFiles(files: File[]) {
    if (files.length === 0 || reading) return;
    setReading(true);
    setNote(null);
    try {
      added(await fileEntries(files.map(asBatchFile), room));
    } catch (error) {
      refused(error);
    } finally {
      setReading(false);
    }
  }

  function onDrop(event: DragEvent) {
    event.preventDefault();
    setDragging(false);
    void addFiles([...event.dataTransfer.files]);
  }

  const unsent = queue.rows.filter((row) => row.send.state === 'unsent').length;
  const accepted = queue.rows.filter((row) => row.send.state === 'accepted').length;
  const refusedCount = queue.rows.filter((row) => row.send.state === 'refused').length;
  // Asked to be sent and not answered yet: waiting their turn, being sent, or waiting out a 429.
  const waiting = queue.rows.filter((row) => row.send.state === 'queued' || row.send.state === 'sending' || row.send.state === 'waiting').length;
  const minimum = info.data?.fee_rate;
  const known = useKnownMinimum(minimum, info.dataUpdatedAt);
  const withClientCode = queue.clientCode.trim() !== '';
  // A send answered otherwise than the page judged it (refused as below a minimum it clears, or accepted below
  // it): the minimum has moved since the page last asked. It asks again at once, so the rows not sent yet are
  // judged against the new one, rather than at the next minute's refresh.
  const contradictions = queue.rows.filter((row) => contradicted(row, known, withClientCode)).length;
  const { refetch } = info;
  useEffect(() => {
    if (contradictions > 0) void refetch();
  }, [contradictions, refetch]);

  return (
    // The whole page takes a drop: a file let go beside the zone is queued, not opened by the browser in place of the page.
    <main
      className="landing batch-page"
      onDragOver={(e) => {
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={(e) => {
        if (!(e.relatedTarget instanceof Node) || !e.currentTarget.contains(e.relatedTarget)) setDragging(false);
      }}
      onDrop={onDrop}
    >
      <h1 className="banner">Submit many transactions</h1>
      <p className="minimum" aria-live="polite">
        {info.isError ? (
          <span role="alert">{INFO_FAILURE}</span>
        ) : minimum !== undefined ? (
          <>
            Current minimum fee rate: <strong>{feeRateUp(minimum)} sat/vB</strong>
          </>
        ) : (
          'Loading the current minimum fee rate...'
        )}
      </p>
      <p>
        <Link to="/">Submit a single transaction or package instead</Link>
      </p>

      <section className="tab-panel batch-input" aria-labelledby="batch-add-heading">
        <h2 id="batch-add-heading">Add to the queue</h2>
        <form className="submit-panel" onSubmit={addText}>
          <label htmlFor="batch-text">Transactions, one per line</label>
          <p id="batch-text-help" className="batch-muted">
            Each line is a raw transaction hex or a PSBT (base64, or hex starting 70736274ff). Commas within a line make a package, parents first. Blank
            lines and lines starting with # are skipped. At most {formatCount(MAX_ENTRIES)} entries and 64 MB at once.
          </p>
          <textarea
            id="batch-text"
            className="hex-input"
            rows={8}
            spellCheck={false}
            autoComplete="off"
            aria-describedby="batch-text-help"
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder={'0200000001...\n# a package:\n0200000001...,0200000001...'}
          />
          <div className="submit-row">
            <button type="submit" className="button primary" disabled={text.trim() === ''}>
              Add to queue
            </button>
          </div>
        </form>
        <div className={`drop-zone${dragging ? ' dragging' : ''}`} data-testid="drop-zone">
          <p>Drop .txt, .hex or .psbt files, or .zip, .tar or .tar.gz archives of them, here. Files are read in order of their names.</p>
          {/* The input itself stays focusable; its label is the visible button. */}
          <input
            id="batch-files"
            className="visually-hidden"
            type="file"
            multiple
            accept={FILE_ACCEPT}
            onChange={(e) => {
              const files = [...(e.target.files ?? [])];
              e.target.value = '';
              void addFiles(files);
            }}
          />
          <label className="button" htmlFor="batch-files">
            Choose files
          </label>
          {reading && <p role="status">Reading files...</p>}
        </div>
        {note?.kind === 'error' && (
          <p className="outcome failed" role="alert">
            {note.text}
          </p>
        )}
        {note?.kind === 'added' && (
          <p className="outcome accepted" role="status">
            {note.text}
          </p>
        )}
      </section>

      <section className="tab-panel batch-queue" aria-labelledby="batch-queue-heading">
        <h2 id="batch-queue-heading">Queue ({formatCount(queue.rows.length)})</h2>
        <label htmlFor="batch-client-code" className="optional">
          Client code (optional)
        </label>
        <input id="batch-client-code" className="client-code" autoComplete="off" value={code} onChange={(e) => setCode(e.target.value)} />
        <div className="batch-toolbar">
          <button type="button" className="button primary" onClick={queue.sendAll} disabled={queue.sending || unsent === 0}>
            Send all
          </button>
          {queue.sending && (
            <button type="button" className="button" onClick={queue.stop}>
              Stop
            </button>
          )}
          <button type="button" className="button" onClick={queue.clear} disabled={queue.sending || queue.rows.length === 0}>
            Clear
          </button>
          <span className="batch-muted" aria-live="polite">
            {formatCount(accepted)} accepted · {formatCount(refusedCount)} not accepted · {waiting > 0 && `${formatCount(waiting)} waiting · `}
            {formatCount(unsent)} not sent
          </span>
        </div>
        {queue.waitUntil !== null && (
          <p className="batch-wait" role="status">
            The server asked us to slow down: the next request goes out in {secondsUntil(queue.waitUntil, now)} s.
          </p>
        )}
        {queue.notKept && (
          <p className="notice" role="status">
            This queue is too large for the browser to keep over a reload; keep this tab open until it is sent.
          </p>
        )}
        {queue.rows.length === 0 ? (
          <p className="batch-muted">The queue is empty.</p>
        ) : (
          <ol className="batch-rows">
            {queue.rows.map((row, i) => (
              <BatchRow
                key={row.id}
                row={row}
                position={i + 1}
                minimum={known}
                withClientCode={withClientCode}
                now={row.send.state === 'waiting' ? now : 0}
                onRetry={queue.retry}
                onRemove={queue.remove}
              />
            ))}
          </ol>
        )}
      </section>
    </main>
  );
}
