/**
 * The only file that listens. Starts the app on the configured database and shuts down gracefully:
 * on SIGTERM/SIGINT /readyz answers 503 at once; after the readiness grace period stop accepting connections, answer
 * every request already sent, even if the event loop was busy (http/lifecycle.ts, up to the shutdown timeout), stop
 * the services, close the database, exit 0.
 */
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { openDatabase } from './db/database.js';
import { trackConnections } from './http/lifecycle.js';

export interface ServeOptions {
  /** Called after the app is built and before it listens (tests add routes here). */
  beforeListen?: (app: Awaited<ReturnType<typeof buildApp>>) => Promise<void> | void;
}

export async function serve(config: Config = loadConfig(), options: ServeOptions = {}): Promise<void> {
  const database = openDatabase(config.database, {
    onPoolError: (error) =>
      app?.log.warn(
        { err: { message: error.message } },
        'database connection lost; it will be re-opened on the next query',
      ),
  });
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  try {
    app = await buildApp({ config, database });
  } catch (error) {
    await database.close().catch(() => undefined);
    throw error;
  }
  const running = app;
  const connections = trackConnections(running.server);

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    // First /readyz turns 503 while the server still accepts, so a load balancer polling it stops sending here;
    // then stop accepting, finish what was accepted, close the database.
    running.lifecycle.startDraining();
    running.log.info(
      { signal, graceMs: config.shutdownGraceMs },
      'shutting down: /readyz answers 503; connections are accepted until the grace period ends',
    );
    setTimeout(() => {
      running.log.info('shutting down: no new connections; finishing in-flight requests');
      const deadline = setTimeout(() => {
        running.log.warn('shutdown timeout reached; closing the remaining connections');
        running.server.closeAllConnections();
      }, config.shutdownTimeoutMs);
      deadline.unref();
      connections
        .stop()
        .then(() => running.close())
        .then(() => database.close())
        .then(() => {
          running.log.info('stopped');
          process.exit(0);
        })
        .catch((error: unknown) => {
          running.log.error({ err: error }, 'error during shutdown');
          process.exit(1);
        });
    }, config.shutdownGraceMs);
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));

  await running.services.bootstrap();
  await options.beforeListen?.(running);
  await running.listen({ port: config.port, host: config.host });
  database.startCheckpoints?.((error) =>
    running.log.warn(
      { err: { message: error.message } },
      'the WAL checkpoint thread stopped; the database connection checkpoints on its own again',
    ),
  );
  running.services.startWorkers();
}

/** Runs `serve`, turning a configuration error into one clear line and exit code 1. */
export async function serveFromCli(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`fieldlens: invalid configuration: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  try {
    await serve(config);
  } catch (error) {
    process.stderr.write(`fieldlens: could not start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
