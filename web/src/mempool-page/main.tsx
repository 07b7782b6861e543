import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { MempoolPage } from './mempool-page.tsx';
import './mempool-page.css';

// The /mempool/ page's own entry (web/mempool/index.html): none of the portal's routing, queries or sign-in code.
const root = document.getElementById('root');
if (!root) throw new Error('mempool/index.html has no #root element');

createRoot(root).render(
  <StrictMode>
    <MempoolPage />
  </StrictMode>,
);
