const pad = (n: number) => String(n).padStart(2, '0');

/** yyyy-MM-dd HH:mm:ss in the viewer's time zone (SPEC.md section 9's date format, with the time). */
export function formatDateTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return 'N/A';
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}
