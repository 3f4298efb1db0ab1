/**
 * Real source databases for connector tests: a fresh PostgreSQL database on TEST_DATABASE_URL's server (else
 * 127.0.0.1:5432) and a fresh MariaDB/MySQL database on 127.0.0.1:3306 (root, no password), dropped afterwards.
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import mysql from 'mysql2/promise';
import pg from 'pg';

export interface PgServer {
  host: string;
  port: number;
  user: string;
  password: string | undefined;
}

export function pgServer(): PgServer {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return { host: '127.0.0.1', port: 5432, user: 'postgres', password: undefined };
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port || 5432), user: decodeURIComponent(u.username || 'postgres'), password: u.password ? decodeURIComponent(u.password) : undefined };
}

export function randomName(prefix: string): string {
  return `${prefix}_${randomBytes(5).toString('hex')}`;
}

export interface PgSource {
  server: PgServer;
  database: string;
  /** A client on the source database, as its owner. */
  client: pg.Client;
  dispose(): Promise<void>;
}

async function pgAdmin(server: PgServer, database = 'postgres'): Promise<pg.Client> {
  const c = new pg.Client({ host: server.host, port: server.port, user: server.user, password: server.password, database });
  await c.connect();
  return c;
}

export async function createPgSource(): Promise<PgSource> {
  const server = pgServer();
  const database = randomName('fl_src');
  const admin = await pgAdmin(server);
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const client = await pgAdmin(server, database);
  return {
    server,
    database,
    client,
    async dispose() {
      await client.end().catch(() => {});
      const a = await pgAdmin(server);
      await a.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await a.end();
    },
  };
}

export interface MysqlSource {
  database: string;
  conn: mysql.Connection;
  dispose(): Promise<void>;
}

export const MYSQL = { host: '127.0.0.1', port: 3306, user: 'root' };

export async function createMysqlSource(): Promise<MysqlSource> {
  const database = randomName('fl_src');
  const conn = await mysql.createConnection({ ...MYSQL, multipleStatements: true, charset: 'utf8mb4' });
  await conn.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await conn.query(`USE \`${database}\``);
  return {
    database,
    conn,
    async dispose() {
      await conn.query(`DROP DATABASE IF EXISTS \`${database}\``).catch(() => {});
      await conn.end().catch(() => {});
    },
  };
}

/** A port on 127.0.0.1 with nothing listening (bound once by us, then released). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A TCP server that accepts connections and never answers, to exercise connect timeouts. */
export async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Collects a catalog iterator into an array (test data is small). */
export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** Everything a caller could show of an error: message, detail, own properties, stack. */
export function errorText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  return [err.message, err.stack ?? '', JSON.stringify(err, Object.getOwnPropertyNames(err)), String((err as { detail?: unknown }).detail ?? '')].join('\n');
}
