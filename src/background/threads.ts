/**
 * Starts a worker thread from a module beside the caller. Compiled (dist/), the entry is `<name>.js`; run from source
 * under tsx (tests, `npm run dev`, benchmarks), a worker thread does not inherit tsx's loader, so it registers it
 * first and then imports `<name>.ts`.
 */
import { Worker } from 'node:worker_threads';

export function startModuleThread(callerUrl: string, name: string, workerData: unknown): Worker {
  if (callerUrl.endsWith('.ts')) {
    const tsx = import.meta.resolve('tsx/esm/api');
    const entry = new URL(`./${name}.ts`, callerUrl).href;
    const boot = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); })`;
    return new Worker(boot, { eval: true, workerData });
  }
  return new Worker(new URL(`./${name}.js`, callerUrl), { workerData });
}
