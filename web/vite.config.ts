import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// In development the API runs on the portal's port; the dev server forwards to it.
const api = process.env.PORTAL_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react()],
  server: { proxy: { '/rest-api': api, '/swagger-ui': api, '/mempool': api } },
});
