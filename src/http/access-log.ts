/**
 * The access log: one line per request, written when it completes (Fastify's default writes an "incoming" line too,
 * doubling the logging cost of every request). Each line carries the request id (the child logger's `reqId`), the
 * method, path, client address, status and duration. A route's `logLevel` applies: the probes log at warn, so they
 * stay out of it.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import pino from 'pino';

const INFO = pino.levels.values.info as number;

function line(request: FastifyRequest, reply: FastifyReply) {
  return {
    req: { method: request.method, url: request.url, remoteAddress: request.ip },
    res: { statusCode: reply.statusCode },
    responseTime: reply.elapsedTime,
  };
}

export class AccessLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ ...line(request, reply), err: error }, 'request errored');
    else if ((pino.levels.values[request.log.level] ?? Infinity) <= INFO)
      request.log.info(line(request, reply), 'request completed');
  }
}
