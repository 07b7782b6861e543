import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useInfo } from '../api/getinfo.ts';
import { useStaffMe } from '../api/staff-me.ts';
import { readStoredSession } from '../auth/token-storage.ts';
import { SECTIONS, sectionFor } from './dashboard-sections.ts';
import { SectionView } from './sections/section-view.tsx';

/** 'regtest' becomes 'Regtest' (docs/behaviour.md#dashboard-shell: the network name, capitalised). */
export function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * docs/behaviour.md#dashboard-shell: the left navigation with the 8 sections (behind a toggle
 * on small screens), a header with the network name and logout, and the
 * section itself, named in the address so reload and links work.
 */
export function DashboardShell({ onLogout }: { onLogout: () => Promise<void> }) {
  const [params] = useSearchParams();
  const section = sectionFor(params.get('section'));
  const [menuOpen, setMenuOpen] = useState(false);
  const [leaving, setLeaving] = useState(false);
  const info = useInfo();
  const me = useStaffMe();
  const name = me.data?.username ?? readStoredSession()?.name ?? '';

  return (
    <div className="dashboard">
      <header className="dashboard-header" data-toast-clear>
        <button
          type="button"
          className="nav-toggle icon-button"
          aria-expanded={menuOpen}
          aria-controls="dashboard-nav"
          aria-label="Menu"
          onClick={() => setMenuOpen((open) => !open)}
        >
          ☰
        </button>
        <Link to="/" className="logo">
          Slipstream
        </Link>
        <span className="network" data-testid="network">
          {info.data ? capitalise(info.data.network) : ''}
        </span>
        <span className="staff-name">
          {name}
          {me.data ? (me.data.is_admin ? ' · Admin' : ' · View only') : ''}
        </span>
        <Link to="/metrics">Metrics</Link>
        <button
          type="button"
          className="button"
          disabled={leaving}
          onClick={() => {
            setLeaving(true);
            void onLogout().finally(() => setLeaving(false));
          }}
        >
          Logout
        </button>
      </header>
      <nav id="dashboard-nav" className={menuOpen ? 'dashboard-nav open' : 'dashboard-nav'} aria-label="Dashboard sections">
        <ul>
          {SECTIONS.map((item) => (
            <li key={item.id}>
              <Link
                to={{ search: `?section=${item.id}` }}
                aria-current={item.id === section.id ? 'page' : undefined}
                onClick={() => setMenuOpen(false)}
              >
                {item.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main className="dashboard-main">
        {me.isPending ? (
          <p role="status">Loading data...</p>
        ) : me.isError ? (
          <p role="alert">{me.error.message}</p>
        ) : (
          <SectionView key={section.id} section={section} isAdmin={me.data.is_admin} />
        )}
      </main>
    </div>
  );
}
