const pad = (n: number) => String(n).padStart(2, '0');

/** yyyy-MM-dd HH:mm:ss in the viewer's time zone (docs/behaviour.md#tables-filters-and-dates). */
export function formatDateTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return 'N/A';
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

const easternParts = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/New_York',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
  timeZoneName: 'short',
});

/** docs/behaviour.md#status-page: the status page shows times in Eastern US time, e.g. '2025-03-01 07:00:00 EST'. */
export function formatEastern(unixSeconds: number): string {
  const parts = Object.fromEntries(easternParts.formatToParts(new Date(unixSeconds * 1000)).map((p) => [p.type, p.value]));
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second} ${parts.timeZoneName}`;
}

/** docs/behaviour.md#submit-page: the minimum fee rate is shown rounded up to 2 decimals. */
export function feeRateUp(rate: number): string {
  // The epsilon keeps 1.1 (really 1.1000000000000000888) from becoming 1.11.
  return (Math.ceil(rate * 100 - 1e-9) / 100).toFixed(2);
}

export function feeRate(rate: number | null | undefined): string {
  return rate === null || rate === undefined ? 'N/A' : `${rate.toFixed(2)} sat/vB`;
}

const integer = new Intl.NumberFormat('en-US');

export function count(value: number | null | undefined, unit = ''): string {
  return value === null || value === undefined ? 'N/A' : `${integer.format(value)}${unit}`;
}

/** docs/behaviour.md#limits-and-constants: long txids are shortened to their first 10 and last 10 characters. */
export function shortTxid(txid: string): string {
  return txid.length > 24 ? `${txid.slice(0, 10)}...${txid.slice(-10)}` : txid;
}

/** docs/behaviour.md#status-page: odds above 90 show as '>90%'. */
export function odds(percent: number | null | undefined): string {
  if (percent === null || percent === undefined) return 'N/A';
  if (percent > 90) return '>90%';
  return `${Math.round(percent)}%`;
}
