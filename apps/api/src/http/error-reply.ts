import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Logger, postgresErrorCode } from '@foresight/platform';
import { toErrorResponse } from './error-response';
import { DRAIN_LIMIT_BYTES, DRAIN_LIMIT_MS } from './unread-body';

/** Sends any error as the API's error body. Used by the Nest filter and by Fastify's error handlers alike. */
export function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply, logger: Logger): void {
  // The connection closed before the body arrived (the client left, or the request timeout cut it off
  // with a 408): no one is left to answer, and nothing of ours failed.
  if (request.raw.destroyed && !request.raw.complete) return;
  const response = toErrorResponse(error);
  if (response.unexpected) {
    reply.header('x-correlation-id', request.id);
    logger.error({ err: error, reqId: request.id, route: request.routeOptions?.url }, 'unexpected error');
  } else if (response.status === 503) {
    logger.warn({ err: error, reqId: request.id }, 'backing service unavailable');
  } else if (postgresErrorCode(error) !== undefined) {
    // A 400 all the same, but validation should have caught it first: worth an operator's look.
    logger.warn({ err: error, reqId: request.id, route: request.routeOptions?.url }, 'request refused by Postgres');
  }
  void reply.status(response.status).headers(response.headers).send(response.body);
}

/** Sockets answered after a parse error whose remaining bytes are being read and discarded. */
const draining = new WeakSet<Socket>();

/**
 * Node's `clientError`: the HTTP parser refused the bytes (a bad header, Content-Length or request
 * line), so there is no request to reply to, only the socket. Answers in the API's error shape
 * instead of Fastify's default body, and, as Node does, writes nothing once a response has started
 * on this socket (a malformed body after its headers).
 *
 * After a parse error the client may still be sending (a body behind a refused request line):
 * closing at once would make the kernel reset the connection and drop the answer before the client
 * reads it. So the answer is followed by our FIN, and what still arrives is discarded, bounded as
 * unread bodies are (the parser, stuck in its error, reports each later chunk here again).
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (draining.has(socket)) {
    if (socket.bytesRead > DRAIN_LIMIT_BYTES) socket.destroy();
    return;
  }
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (!socket.writable || socket.bytesWritten > 0) {
    socket.destroy(error);
    return;
  }
  const { status, body } = toErrorResponse(error);
  const text = JSON.stringify(body);
  socket.write(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
  // A timeout (408) has nothing more worth waiting for; only a parse error may have bytes behind it.
  if (!error.code?.startsWith('HPE_')) {
    socket.destroy(error);
    return;
  }
  draining.add(socket);
  socket.end();
  const timer = setTimeout(() => socket.destroy(), DRAIN_LIMIT_MS);
  socket.once('close', () => clearTimeout(timer));
}
