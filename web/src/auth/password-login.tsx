import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { api, ApiError, unwrap } from '../api/http.ts';
import { notify } from '../lib/toasts.tsx';
import { storeLocalToken } from './token-storage.ts';

/** docs/behaviour.md#staff-sign-in: POST /rest-api/login, the token stored locally, then /dashboard. */
export function PasswordLogin() {
  const navigate = useNavigate();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    try {
      const { token } = await unwrap(api.POST('/rest-api/login', { body: { username, password } }));
      if (!token) throw new Error('No token received');
      storeLocalToken(token);
      notify.success('Login successful!', { keepOnNavigate: true });
      await navigate('/dashboard', { replace: true });
    } catch (error) {
      // docs/behaviour.md#error-messages: the server's message, or 'Login failed!'.
      const message = error instanceof ApiError ? error.serverMessage : (error as Error).message;
      notify.error(message || 'Login failed!');
      setBusy(false);
    }
  }

  return (
    <main className="centered">
      <form className="card login-form" onSubmit={(e) => void submit(e)}>
        <h1>Staff sign-in</h1>
        <label>
          Username
          <input autoComplete="username" required value={username} onChange={(e) => setUsername(e.target.value)} />
        </label>
        <label>
          Password
          <input type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? 'Signing in...' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
