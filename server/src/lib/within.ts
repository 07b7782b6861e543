/** What `within` rejects with when the deadline passes first. */
export class TimedOut extends Error {}

/**
 * `work`'s result, or a TimedOut rejection after `ms`. A late settlement of
 * `work` is dropped: the caller has moved on, and `work` must be bounded by
 * its own timeouts (the database pool's, the RPC client's).
 */
export function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new TimedOut(`no answer within ${ms} ms`)), ms);
  });
  work.catch(() => {}); // its failure after the deadline is nobody's to handle
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
