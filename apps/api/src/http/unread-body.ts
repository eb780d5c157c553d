import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Most of an unread body read and discarded before answering; a client sending more meets the close early. */
export const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;
export const DRAIN_LIMIT_MS = 5_000;

/**
 * Reads the rest of a request body no route read (a body sent with a GET, one refused by its
 * Content-Length) before the answer goes out. Answering and closing while the client still sends
 * makes the kernel reset the connection, and a reset can drop the answer before the client reads
 * it: the client sees a broken pipe instead of the status. Bounded in bytes and time, so a sender of
 * endless bodies holds nothing for long.
 */
export function readUnreadBodies(fastify: FastifyInstance): void {
  fastify.addHook('onSend', async (request, _reply, payload) => {
    await unreadBodyRead(request);
    return payload;
  });
}

/**
 * Resolves once the request's body has been read to its end (or past the drain's bounds). The onSend
 * hook above waits for it before every route's answer; an answer Fastify gives before any route (a
 * path that is not validly percent-encoded: frameworkErrors) runs no route's hooks and waits for it itself.
 */
export function unreadBodyRead(request: FastifyRequest): Promise<void> {
  return request.raw.complete ? Promise.resolve() : drained(request.raw);
}

function drained(body: FastifyRequest['raw']): Promise<void> {
  return new Promise((resolve) => {
    let read = 0;
    const done = () => {
      clearTimeout(timer);
      body.off('data', count);
      resolve();
    };
    const count = (chunk: Buffer) => {
      read += chunk.length;
      if (read > DRAIN_LIMIT_BYTES) done();
    };
    const timer = setTimeout(done, DRAIN_LIMIT_MS);
    body.on('data', count).once('end', done).once('error', done).once('close', done);
    body.resume();
  });
}
