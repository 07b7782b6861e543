/** docs/behaviour.md#tx-puller and docs/behaviour.md#tx-reports: a list's Download button reads 'Downloading' while the file is on its way, and cannot be pressed again then. */
export function DownloadButton({ busy, onDownload }: { busy: boolean; onDownload: () => void }) {
  return (
    <button type="button" className="button" disabled={busy} aria-busy={busy} onClick={onDownload}>
      {busy ? 'Downloading' : 'Download'}
    </button>
  );
}
