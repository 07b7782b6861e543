/**
 * Serialized sizes by txid, the newest `capacity` of them (with whatever
 * else of the portal's record goes with a size: T). A txid names one
 * transaction, so its size does not go stale. (A third party could relay
 * the same transaction with a different witness, hence another size, under
 * the same txid; the portal's own records have the same limit.)
 */
export interface SizeMemo<T = number> {
  get(txid: string): T | undefined;
  remember(txid: string, size: T): void;
}

export function createSizeMemo<T = number>(capacity: number): SizeMemo<T> {
  // A Map iterates in insertion order: its first key is the oldest.
  const sizes = new Map<string, T>();
  return {
    get: (txid) => sizes.get(txid),
    remember(txid, size) {
      sizes.delete(txid);
      sizes.set(txid, size);
      if (sizes.size > capacity) sizes.delete(sizes.keys().next().value!);
    },
  };
}
