/** page and limit, then every filter that has a value (SPEC.md section 7: list calls take page and limit). */
export function listQueryString(page: number, limit: number, filters: Record<string, string | undefined>): string {
  const query = new URLSearchParams({ page: String(page), limit: String(limit) });
  for (const [name, value] of Object.entries(filters)) {
    if (value !== undefined && value !== '') query.set(name, value);
  }
  return query.toString();
}
