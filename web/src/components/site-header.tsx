import { useSyncExternalStore } from 'react';
import { Link, useLocation } from 'react-router';
import { hasStoredToken, onStoredSessionChange } from '../auth/token-storage.ts';

/** Follows the stored token, also when another tab signs in or out. */
function useSignedIn(): boolean {
  return useSyncExternalStore(onStoredSessionChange, hasStoredToken);
}

/**
 * SPEC.md section 2: the logo linking to '/', API DOCS, and a DASHBOARD
 * button shown on '/' only, and only with a stored sign-in token.
 */
export function SiteHeader() {
  const { pathname } = useLocation();
  const signedIn = useSignedIn();
  return (
    <header className="site-header">
      <Link to="/" className="logo">
        Slipstream
      </Link>
      <nav aria-label="Site">
        <a href="/swagger-ui">API DOCS</a>
        {pathname === '/' && signedIn && (
          <Link to="/dashboard" className="button primary">
            DASHBOARD
          </Link>
        )}
      </nav>
    </header>
  );
}
