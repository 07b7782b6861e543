import { useEffect, useState } from 'react';
import { Navigate, useLocation, useSearchParams } from 'react-router';
import { hasStoredToken } from '../auth/token-storage.ts';
import { startSignIn } from '../auth/oidc.ts';
import { PasswordLogin } from '../auth/password-login.tsx';
import { errorText } from '../lib/error-text.ts';

/** Where a guarded page sent the user from, so sign-in can return there. */
export interface LoginState {
  from?: string;
}

/**
 * SPEC.md section 2: straight to /dashboard when a token is stored; otherwise
 * 'Redirecting to login...' while the provider redirect starts, with
 * /dashboard (or the page that sent the user here) as the return target.
 * `?method=password` offers a local staff account instead (no single sign-on,
 * or break-glass access when the provider is down).
 */
export function LoginRoute() {
  const [params] = useSearchParams();
  const location = useLocation();
  const from = (location.state as LoginState | null)?.from;
  const [failure, setFailure] = useState<string | null>(null);
  const password = params.get('method') === 'password';
  const signedIn = hasStoredToken();

  useEffect(() => {
    if (signedIn || password) return;
    startSignIn(from ?? '/dashboard').catch((error: unknown) => setFailure(errorText(error)));
  }, [signedIn, password, from]);

  if (signedIn) return <Navigate to="/dashboard" replace />;
  if (password) return <PasswordLogin />;
  if (failure) {
    return (
      <main className="centered">
        <p role="alert">{failure}</p>
        <p>
          <a href="/login?method=password">Sign in with a staff account instead</a>
        </p>
      </main>
    );
  }
  return (
    <main className="centered">
      <p role="status">Redirecting to login...</p>
    </main>
  );
}
