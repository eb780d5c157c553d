import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Logger, postgresErrorCode } from '@foresight/platform';
import { toErrorResponse } from './error-response';

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

/**
 * Node's `clientError`: the HTTP parser refused the bytes (a bad header, Content-Length or request
 * line), so there is no request to reply to, only the socket. Answers in the API's error shape
 * instead of Fastify's default body, then closes the connection, as Node itself does; and, as Node
 * does, writes nothing once a response has started on this socket (a malformed body after its headers).
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable && socket.bytesWritten === 0) {
    const { status, body } = toErrorResponse(error);
    const text = JSON.stringify(body);
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
    );
  }
  socket.destroy(error);
}
