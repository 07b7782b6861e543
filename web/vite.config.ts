import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// In development the API runs on the portal's port; the dev server forwards to it.
// The /mempool/ page itself is one of ours (mempool/index.html), so only its API goes through.
const api = process.env.PORTAL_URL ?? 'http://127.0.0.1:8080';

const page = (file: string) => fileURLToPath(new URL(file, import.meta.url));

export default defineConfig({
  plugins: [react()],
  server: { proxy: { '/rest-api': api, '/api': api, '/swagger-ui': api, '/mempool/api': api } },
  build: {
    rolldownOptions: {
      // Two pages: the portal (dist/index.html, served for every other path) and
      // the /mempool/ dashboard (dist/mempool/index.html). The portal's entry keeps its name.
      input: { index: page('index.html'), mempool: page('mempool/index.html') },
    },
  },
});
