import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { completeSignIn } from '../auth/oidc.ts';
import { errorText } from '../lib/error-text.ts';

/**
 * docs/behaviour.md#staff-sign-in: the provider comes back here; after sign-in the user goes
 * back to the originally requested address, or /. In a hidden frame (renewal
 * without a refresh token) the library hands the answer to the parent instead.
 */
export function LoginCallbackRoute() {
  const navigate = useNavigate();
  const [failure, setFailure] = useState<string | null>(null);
  // The authorization code is single-use: React's development double effect must not redeem it twice.
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    completeSignIn()
      .then((target) => navigate(target, { replace: true }))
      .catch((error: unknown) => setFailure(errorText(error)));
  }, [navigate]);

  if (failure) {
    return (
      <main className="centered">
        <p role="alert">{failure}</p>
        <p>
          <a href="/login">Try signing in again</a>
        </p>
      </main>
    );
  }
  return (
    <main className="centered">
      <p role="status">Signing you in...</p>
    </main>
  );
}
