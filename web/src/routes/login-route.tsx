import { useEffect, useState } from 'react';
import { Navigate, useLocation, useSearchParams } from 'react-router';
import { hasStoredToken } from '../auth/token-storage.ts';
import { ProviderUnreachableError, startSignIn } from '../auth/oidc.ts';
import { watchProviderRetries } from '../auth/provider-fetch.ts';
import { PasswordLogin } from '../auth/password-login.tsx';
import type { RetryNotice } from '../auth/retrying-fetch.ts';
import { errorText } from '../lib/error-text.ts';

/** Where a guarded page sent the user from, so sign-in can return there. */
export interface LoginState {
  from?: string;
}

/**
 * docs/behaviour.md#staff-sign-in: straight to /dashboard when a token is stored; otherwise
 * 'Redirecting to login...' while the provider redirect starts, with
 * /dashboard (or the page that sent the user here) as the return target.
 * `?method=password` offers a local staff account instead (no single sign-on,
 * or break-glass access when the provider is down). While the provider does
 * not answer, the page says so from the first failed attempt (the retries of
 * docs/behaviour.md#sign-in-retries take half a minute) and offers the password sign-in.
 */
const PASSWORD_SIGN_IN = '/login?method=password';
export function LoginRoute() {
  const [params] = useSearchParams();
  const location = useLocation();
  const from = (location.state as LoginState | null)?.from;
  const [failure, setFailure] = useState<string | null>(null);
  const [retrying, setRetrying] = useState<RetryNotice | null>(null);
  const password = params.get('method') === 'password';
  const signedIn = hasStoredToken();

  useEffect(() => {
    if (signedIn || password) return;
    const unwatch = watchProviderRetries(setRetrying);
    startSignIn(from ?? '/dashboard').catch((error: unknown) => {
      setRetrying(null);
      // This one is a situation, not a program's error: said in words, without 'name: message'.
      setFailure(error instanceof ProviderUnreachableError ? error.message : errorText(error));
    });
    return unwatch;
  }, [signedIn, password, from]);

  if (signedIn) return <Navigate to="/dashboard" replace />;
  if (password) return <PasswordLogin />;
  if (failure) {
    return (
      <main className="centered">
        <p role="alert">{failure}</p>
        <p>
          <a href={PASSWORD_SIGN_IN}>Sign in with a staff account instead</a>
        </p>
        <p>
          <a href="/login">Try again</a>
        </p>
      </main>
    );
  }
  return (
    <main className="centered">
      <p role="status">Redirecting to login...</p>
      {retrying && (
        <>
          <p role="status">
            {retrying.reason === 'unreachable' ? 'The sign-in provider is not answering' : 'The sign-in provider is busy'} (attempt {retrying.attempt} of {retrying.attempts}); trying again.
          </p>
          <p>
            <a href={PASSWORD_SIGN_IN}>Sign in with a staff account instead</a>
          </p>
        </>
      )}
    </main>
  );
}
