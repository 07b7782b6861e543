import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { App } from './app.tsx';
import { DashboardRoute } from './routes/dashboard-route.tsx';
import { LoginRoute } from './routes/login-route.tsx';
import { StatusRoute } from './routes/status-route.tsx';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

/** The route table of SPEC.md section 2; every other path goes to /. */
createRoot(root).render(
  <StrictMode>
    <BrowserRouter>
      <Routes>
        <Route path="/" element={<App />} />
        <Route path="/status" element={<StatusRoute />} />
        <Route path="/tx" element={<StatusRoute />} />
        <Route path="/login" element={<LoginRoute />} />
        <Route path="/login/callback" element={<p role="status">Signing you in...</p>} />
        <Route path="/dashboard" element={<DashboardRoute />} />
        <Route path="/metrics" element={<main />} />
        <Route path="/error" element={<main />} />
        <Route path="*" element={<Navigate to="/" replace />} />
      </Routes>
    </BrowserRouter>
  </StrictMode>,
);
