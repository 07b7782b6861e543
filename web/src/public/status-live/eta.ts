/**
 * When a waiting transaction is likely mined: its projected block is the
 * number of blocks the pool must mine before it (block 0: the next one),
 * and the pool finds a block every `expectedNextBlockSeconds` on average at
 * its 24-hour share. The submitted transaction is in the pool's mempool
 * only, so only the pool's blocks count.
 */
export function etaText(block: number | null, expectedNextBlockSeconds: number | null): string | null {
  if (block === null) return null;
  const blocks = block + 1;
  const within = `Likely within ${blocks} ${blocks === 1 ? 'block' : 'blocks'}`;
  if (expectedNextBlockSeconds === null) return `${within}; the pool's block share is unknown, so no time can be given.`;
  const hours = (blocks * expectedNextBlockSeconds) / 3600;
  const shown = hours < 10 ? hours.toFixed(1) : String(Math.round(hours));
  return `${within}, about ${shown} ${shown === '1.0' ? 'hour' : 'hours'} at the pool's share.`;
}
