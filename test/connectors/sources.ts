/**
 * Real source databases for connector tests: a fresh PostgreSQL database on TEST_DATABASE_URL's server (else
 * 127.0.0.1:5432) and a fresh MariaDB/MySQL database on 127.0.0.1:3306 (root, no password), dropped afterwards.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Duplex } from 'node:stream';
import tls from 'node:tls';
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
  return {
    host: u.hostname,
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username || 'postgres'),
    password: u.password ? decodeURIComponent(u.password) : undefined,
  };
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
  const c = new pg.Client({
    host: server.host,
    port: server.port,
    user: server.user,
    password: server.password,
    database,
  });
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
  return [
    err.message,
    err.stack ?? '',
    JSON.stringify(err, Object.getOwnPropertyNames(err)),
    String((err as { detail?: unknown }).detail ?? ''),
  ].join('\n');
}

function selfSignedCert(subjectAltName: string): { key: Buffer; cert: Buffer } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fl-tls-'));
  try {
    const keyFile = path.join(dir, 'key.pem');
    const certFile = path.join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        keyFile,
        '-out',
        certFile,
        '-days',
        '1',
        '-subj',
        '/CN=fieldlens-test',
        '-addext',
        `subjectAltName=${subjectAltName}`,
      ],
      { stdio: 'ignore' },
    );
    return { key: fs.readFileSync(keyFile), cert: fs.readFileSync(certFile) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// MySQL initial handshake (protocol 10) offering TLS: PROTOCOL_41, SSL, SECURE_CONNECTION, PLUGIN_AUTH, LONG_PASSWORD, CONNECT_WITH_DB.
function mysqlHandshake(): Buffer {
  const caps = 0x1 | 0x8 | 0x200 | 0x800 | 0x8000 | 0x80000;
  const u16 = (n: number): Buffer => Buffer.from([n & 0xff, (n >>> 8) & 0xff]);
  const payload = Buffer.concat([
    Buffer.from([10]),
    Buffer.from('8.0.0-stand-in\0'),
    Buffer.from([1, 0, 0, 0]),
    Buffer.alloc(8, 0x61),
    Buffer.from([0]),
    u16(caps & 0xffff),
    Buffer.from([33]),
    u16(2),
    u16(caps >>> 16),
    Buffer.from([21]),
    Buffer.alloc(10),
    Buffer.concat([Buffer.alloc(12, 0x62), Buffer.from([0])]),
    Buffer.from('mysql_native_password\0'),
  ]);
  return Buffer.concat([Buffer.from([payload.length & 0xff, (payload.length >>> 8) & 0xff, 0, 0]), payload]);
}

/**
 * A stand-in server that negotiates TLS as PostgreSQL (SSLRequest → 'S') or MySQL (handshake offering SSL → the
 * client's SSLRequest packet) would, with a fresh self-signed certificate for `subjectAltName` (made by the openssl
 * command), then hangs up: enough to check what each `ssl` mode trusts.
 */
export async function selfSignedTlsServer(
  protocol: 'postgresql' | 'mysql',
  subjectAltName: string,
): Promise<{ port: number; cert: string; close(): Promise<void> }> {
  const { key, cert } = selfSignedCert(subjectAltName);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    if (protocol === 'mysql') socket.write(mysqlHandshake());
    socket.once('data', (chunk: Buffer) => {
      // The client's request (PostgreSQL 8 bytes, MySQL a 36-byte packet) may arrive with the start of its TLS hello.
      // TLS runs over a stream we feed, so those bytes reach it.
      const rest = chunk.subarray(protocol === 'postgresql' ? 8 : 36);
      const carrier = new Duplex({
        read() {},
        write(data: Buffer, _encoding, callback) {
          socket.write(data, callback);
        },
      });
      if (rest.length) carrier.push(rest);
      socket.on('data', (data: Buffer) => carrier.push(data));
      socket.on('close', () => carrier.push(null));
      if (protocol === 'postgresql') socket.write('S');
      const secure = new tls.TLSSocket(carrier, { isServer: true, key, cert });
      secure.on('close', () => socket.destroy());
      secure.on('error', () => {});
      secure.once('data', () => secure.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    cert: cert.toString('utf8'),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
