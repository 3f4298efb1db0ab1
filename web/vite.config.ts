// Builds the console into web/dist, which the service serves at / (src/http/console.ts).
import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [preact({ prerender: { enabled: false } })],
  // `npm run dev:console`: the page from Vite with hot reload, the API from `npm run dev` (FIELDLENS_DEV_API or :8080).
  server: {
    proxy: Object.fromEntries(
      ['/api', '/openapi.json'].map((p) => [p, process.env.FIELDLENS_DEV_API ?? 'http://127.0.0.1:8080']),
    ),
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    // Every script and style is a file under /assets: the page works under `script-src 'self'; style-src 'self'`.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    target: 'es2022',
  },
});
