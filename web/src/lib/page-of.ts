/** The page a toast belongs to: the path, and on the dashboard its section (its list state is the same page). */
export function pageOf(pathname: string, search: string): string {
  const section = pathname === '/dashboard' ? new URLSearchParams(search).get('section') : null;
  return section === null ? pathname : `${pathname}?section=${section}`;
}
