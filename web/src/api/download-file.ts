import { readStoredSession } from '../auth/token-storage.ts';
import { ApiError } from './http.ts';

/**
 * The staff lists' downloads (SPEC.md section 7: "blob when download"): the
 * file is fetched with the bearer token like every staff call, since a plain
 * link could not carry it, and handed to the browser from memory.
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

function messageOf(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { message?: unknown };
    return typeof body.message === 'string' && body.message !== '' ? body.message : undefined;
  } catch {
    return undefined;
  }
}

/** GETs `path` as a staff call and answers the body as a file; failures throw ApiError as apiCall's do (a 401 ends the session). */
export async function fetchFile(path: string, fallbackName: string, signal?: AbortSignal): Promise<DownloadedFile> {
  const headers: Record<string, string> = { 'x-portal-client': 'web' };
  const session = readStoredSession();
  if (session) headers.authorization = `Bearer ${session.idToken}`;
  let response: Response;
  try {
    response = await fetch(path, { headers, signal: signal ?? null });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, undefined);
  }
  if (!response.ok) {
    const text = await response.text().catch(() => '');
    throw new ApiError(response.status, messageOf(text));
  }
  let blob: Blob;
  try {
    blob = await response.blob();
  } catch {
    // The connection broke part-way: the server ends a failing download that way rather than send half a file.
    throw new ApiError(0, undefined);
  }
  return { blob, filename: dispositionFilename(response.headers.get('content-disposition')) ?? fallbackName };
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
