/**
 * The receipts this browser was given, by txid, in local storage: the
 * status page offers "Download receipt" from here, since nobody (the status
 * page included) can ask the pool for a receipt by txid. They stay on this
 * device only; the newest MAX_KEPT are kept, so the storage stays small.
 */

export const RECEIPTS_STORAGE_KEY = 'slipstream-receipts';
export const MAX_KEPT = 200;

/** The part of the Storage interface used here (window.localStorage in the page; a map in unit tests). */
export type ReceiptStorage = Pick<Storage, 'getItem' | 'setItem'>;

type Kept = Array<[txid: string, receipt: string]>;

function read(storage: ReceiptStorage): Kept {
  try {
    const parsed = JSON.parse(storage.getItem(RECEIPTS_STORAGE_KEY) ?? '[]') as unknown;
    return Array.isArray(parsed) ? parsed.filter((e): e is [string, string] => Array.isArray(e) && typeof e[0] === 'string' && typeof e[1] === 'string') : [];
  } catch {
    return [];
  }
}

const defaultStorage = (): ReceiptStorage | undefined => {
  try {
    // Read through globalThis: the same module runs in the unit tests, where there is no window.
    return (globalThis as { localStorage?: ReceiptStorage }).localStorage;
  } catch {
    return undefined; // storage disabled: nothing is kept, the submit answer still shows the receipt
  }
};

/** Keeps `receipts` (txid → receipt), newest last; the oldest beyond MAX_KEPT are dropped. Never throws: a full or disabled storage keeps nothing. */
export function keepReceipts(receipts: Record<string, string>, storage = defaultStorage()): void {
  if (!storage) return;
  const added = Object.entries(receipts);
  if (added.length === 0) return;
  const kept = read(storage).filter(([txid]) => !(txid in receipts));
  try {
    storage.setItem(RECEIPTS_STORAGE_KEY, JSON.stringify([...kept, ...added].slice(-MAX_KEPT)));
  } catch {
    // Quota exceeded: the receipt is still in the submit answer on screen.
  }
}

/** The receipt kept for `txid`, if this browser was given one. */
export function keptReceipt(txid: string, storage = defaultStorage()): string | undefined {
  if (!storage) return undefined;
  return read(storage).find(([t]) => t === txid.toLowerCase())?.[1];
}
