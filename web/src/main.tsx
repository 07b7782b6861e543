import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { lazy, StrictMode, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { App } from './app.tsx';
import { Toasts } from './lib/toasts.tsx';
import { BatchRoute } from './routes/batch-route.tsx';
import { DashboardRoute } from './routes/dashboard-route.tsx';
import { MetricsRoute } from './routes/metrics-route.tsx';
import { StatusRoute } from './routes/status-route.tsx';
import { VerifyRoute } from './routes/verify-route.tsx';
import './styles.css';
import { SynchroTableRoute } from './routes/synchro-table-route.tsx';

// The sign-in pages carry the OpenID Connect client; public visitors never load it.
const LoginRoute = lazy(() => import('./routes/login-route.tsx').then((m) => ({ default: m.LoginRoute })));
const LoginCallbackRoute = lazy(() => import('./routes/login-callback-route.tsx').then((m) => ({ default: m.LoginCallbackRoute })));

// The public pages' calls; the dashboard has its own client with the staff error handling.
const publicQueries = new QueryClient({ defaultOptions: { queries: { retry: 1 } } });

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

/** The route table of docs/behaviour.md#web-routes; every other path goes to /. */
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={publicQueries}>
      <BrowserRouter>
        <Suspense fallback={null}>
          <Routes>
            <Route path="/" element={<App />} />
            <Route path="/batch" element={<BatchRoute />} />
            <Route path="/status" element={<StatusRoute />} />
            <Route path="/tx" element={<StatusRoute />} />
            <Route path="/tx/:txid" element={<StatusRoute />} />
            <Route path="/verify" element={<VerifyRoute />} />
            <Route path="/login" element={<LoginRoute />} />
            <Route path="/login/callback" element={<LoginCallbackRoute />} />
            <Route path="/dashboard" element={<DashboardRoute />} />
            <Route path="/metrics" element={<MetricsRoute />} />
            <Route path="/error" element={<main />} />
            <Route path="/synchro/table" element={<SynchroTableRoute />} />
            <Route path="*" element={<Navigate to="/" replace />} />
          </Routes>
        </Suspense>
        <Toasts />
      </BrowserRouter>
    </QueryClientProvider>
  </StrictMode>,
);
