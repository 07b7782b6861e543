import { useSyncExternalStore } from 'react';
import { Link, useLocation } from 'react-router';
import { useSiteInfo } from '../api/site-info.ts';
import { hasStoredToken, onStoredSessionChange } from '../auth/token-storage.ts';
import { Logo } from './logo.tsx';

/** Follows the stored token, also when another tab signs in or out. */
function useSignedIn(): boolean {
  return useSyncExternalStore(onStoredSessionChange, hasStoredToken);
}

/**
 * docs/behaviour.md#banner-and-header: the logo linking to '/', API DOCS, the provider's site,
 * a DASHBOARD button shown on '/' only and only with a stored sign-in token,
 * and the contact line for custom blocks.
 */
export function SiteHeader() {
  const { pathname } = useLocation();
  const signedIn = useSignedIn();
  const site = useSiteInfo();
  return (
    <header className="site-header" data-toast-clear>
      <div className="site-header-main">
        <Link to="/" className="logo" aria-label="Slipstream home">
          <Logo />
        </Link>
        <nav aria-label="Site">
          <a href="/swagger-ui">API DOCS</a>
          {site.data?.company_url && (
            <a href={site.data.company_url} target="_blank" rel="noopener noreferrer">
              Provider site
            </a>
          )}
          {pathname === '/' && signedIn && (
            <Link to="/dashboard" className="button primary">
              DASHBOARD
            </Link>
          )}
        </nav>
      </div>
      {site.data?.contact_email && (
        <p className="contact-line">
          For custom blocks please contact <a href={`mailto:${site.data.contact_email}`}>{site.data.contact_email}</a>
        </p>
      )}
    </header>
  );
}
