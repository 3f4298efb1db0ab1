// Connector benchmark: lists the catalog of a PostgreSQL source (bench/scan-source.ts) and samples every table
// through the PostgreSQL connector, streaming (one catalog page of tables in memory at a time), with the pool's
// concurrency. Prints catalog time, sampling time, peak RSS (VmHWM) and rows read per table (max, total, and for
// every table whose estimate is ≥ 1M rows) to show no table is read in full.
// Run: node --import tsx bench/connectors.ts   (BENCH_SOURCE_URL as for scan-source; BENCH_SAMPLE_SIZE default 100;
//      BENCH_CONCURRENCY default 2; BENCH_FILTER_SCHEMA to also time a filtered catalog listing, default 'hr')
import fs from 'node:fs';
import { openConnector, type CatalogTable } from '../src/connectors/index.js';
import { SOURCE_URL } from './scan-source.js';

const SAMPLE_SIZE = Number(process.env.BENCH_SAMPLE_SIZE ?? 100);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 2);
const FILTER_SCHEMA = process.env.BENCH_FILTER_SCHEMA ?? 'hr';

function peakRssMiB(): number {
  const status = fs.readFileSync('/proc/self/status', 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

async function main(): Promise<void> {
  const url = new URL(SOURCE_URL);
  const spec = {
    kind: 'postgresql' as const,
    host: url.hostname,
    port: Number(url.port || 5432),
    user: decodeURIComponent(url.username || 'postgres'),
    password: url.password ? decodeURIComponent(url.password) : undefined,
    database: url.pathname.slice(1),
    sample_size: SAMPLE_SIZE,
  };
  const rssStart = process.memoryUsage().rss / 2 ** 20;

  // 1. The catalog alone.
  const listing = openConnector(spec, { maxConnections: CONCURRENCY });
  const { server_version } = await listing.test();
  let t0 = performance.now();
  let tables = 0;
  let columns = 0;
  for await (const t of listing.listColumns()) {
    tables++;
    columns += t.columns.length;
  }
  const catalogMs = performance.now() - t0;
  t0 = performance.now();
  let filtered = 0;
  for await (const _ of listing.listColumns({ include_schemas: [FILTER_SCHEMA] })) filtered++;
  const filteredMs = performance.now() - t0;
  const filteredRows = listing.stats.catalog_rows;
  await listing.close();

  // 2. Catalog and samples together, as a scan does: each page's tables sampled CONCURRENCY at a time.
  const scan = openConnector(spec, { maxConnections: CONCURRENCY });
  t0 = performance.now();
  let maxRows = 0;
  let maxTable = '';
  let values = 0;
  const big: { table: string; estimate: number; rows_read: number; ms: number }[] = [];
  const queue: CatalogTable[] = [];
  const sampleOne = async (t: CatalogTable): Promise<void> => {
    const s0 = performance.now();
    const r = await scan.sample(t, t.columns);
    for (const v of r.values.values()) values += v.length;
    if (r.rows_read > maxRows) {
      maxRows = r.rows_read;
      maxTable = `${t.schema}.${t.name}`;
    }
    if ((t.row_estimate ?? 0) >= 1_000_000)
      big.push({
        table: `${t.schema}.${t.name}`,
        estimate: t.row_estimate!,
        rows_read: r.rows_read,
        ms: performance.now() - s0,
      });
  };
  const drain = async (): Promise<void> => {
    const workers = Array.from({ length: CONCURRENCY }, async () => {
      for (let t = queue.shift(); t; t = queue.shift()) await sampleOne(t);
    });
    await Promise.all(workers);
  };
  for await (const t of scan.listColumns()) {
    queue.push(t);
    if (queue.length >= 500) await drain();
  }
  await drain();
  const scanMs = performance.now() - t0;
  const stats = scan.stats;
  await scan.close();

  const fmt = (n: number): string => n.toLocaleString('en');
  console.log(`server: ${server_version}; sample size ${SAMPLE_SIZE}; concurrency ${CONCURRENCY}`);
  console.log(`catalog: ${fmt(tables)} tables, ${fmt(columns)} columns in ${(catalogMs / 1000).toFixed(2)} s`);
  console.log(
    `filtered catalog (include_schemas ${FILTER_SCHEMA}): ${fmt(filtered)} tables in ${(filteredMs / 1000).toFixed(2)} s; catalog rows fetched for it: ${fmt(filteredRows - tables - columns)}`,
  );
  console.log(
    `catalog + sampling every table: ${(scanMs / 1000).toFixed(1)} s, ${fmt(stats.sample_queries)} sample queries`,
  );
  console.log(
    `rows read: total ${fmt(stats.rows_read)}, max per table ${fmt(maxRows)} (${maxTable}); sampled values kept ${fmt(values)}`,
  );
  for (const b of big)
    console.log(
      `  ${b.table}: estimate ${fmt(b.estimate)} rows, read ${fmt(b.rows_read)} rows in ${b.ms.toFixed(0)} ms`,
    );
  console.log(`RSS: start ${rssStart.toFixed(0)} MiB, peak ${peakRssMiB().toFixed(0)} MiB`);
}

await main();
