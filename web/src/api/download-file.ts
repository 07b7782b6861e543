/**
 * The staff lists' downloads (docs/behaviour.md#downloads): the
 * file is fetched with the bearer token like every staff call, since a plain
 * link could not carry it (api/list-query.ts, downloadList), and handed to
 * the browser from memory.
 */

export interface DownloadedFile {
  blob: Blob;
  /** The server's name for it (Content-Disposition), or the fallback. */
  filename: string;
}

/** The filename parameter of a Content-Disposition header (RFC 6266), quoted or not. */
export function dispositionFilename(header: string | null): string | undefined {
  if (!header) return undefined;
  const match = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(header);
  const name = match?.[1]?.replace(/\\(.)/g, '$1') ?? match?.[2];
  // A name, not a path.
  return name ? name.replace(/[/\\]/g, '_') : undefined;
}

/**
 * Hands a fetched file to the browser's downloads under its name. The object
 * URL is released a minute later, not at once: the browser reads the blob
 * after click() has returned, and some (Firefox) cancel the download when
 * the URL is revoked before they have.
 */
export function saveFile(file: DownloadedFile): void {
  const url = URL.createObjectURL(file.blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = file.filename;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
