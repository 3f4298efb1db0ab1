/** The reference: a bare Fastify hello-world with the same route shape as /healthz, no logging, no hooks. */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/healthz', async () => ({ status: 'ok' }));
await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
const address = app.server.address();
if (address && typeof address === 'object') process.stdout.write(`LISTENING ${address.port}\n`);
