import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { HttpError, mapError, VALIDATION_MESSAGE } from '@paygate/server';

/** What a request the HTTP parser refused gets: the error envelope, with `details` naming what to fix. */
function answerFor(err: NodeJS.ErrnoException): { status: number; reason: string; body: string } | undefined {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return undefined; // Node's own 408 (the body never arrived: nothing to name)
    case 'HPE_HEADER_OVERFLOW':
      return envelope(400, 'Bad Request', { headers: 'are too large: keep the request line and headers under 16 KiB' });
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_INVALID_CONSTANT':
    case 'HPE_LF_EXPECTED':
    case 'HPE_CR_EXPECTED':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return envelope(400, 'Bad Request', {
        headers: 'are malformed: no CR, LF or NUL inside a header, one valid Content-Length or Transfer-Encoding',
      });
    default:
      return envelope(400, 'Bad Request', { request: 'is not a well-formed HTTP/1.1 request' });
  }
}

function envelope(status: number, reason: string, details: Record<string, string>): { status: number; reason: string; body: string } {
  return { status, reason, body: JSON.stringify(mapError(new HttpError(status, 'ERR_VALIDATION_400', VALIDATION_MESSAGE, details)).body) };
}

/**
 * A request Node's HTTP parser refuses (a CR or NUL inside a header, an oversize header block, a conflicting
 * Content-Length) never reaches Express. Node would answer a bare `400 Bad Request` without a body; this answers
 * the API's error envelope instead, then closes the connection (the parser cannot resynchronise on it).
 */
export function answerMalformedRequests(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || err.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const answer = answerFor(err);
    if (answer === undefined) {
      socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
      return;
    }
    socket.end(
      `HTTP/1.1 ${answer.status} ${answer.reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(answer.body)}\r\n` +
        `Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${answer.body}`,
    );
  });
}
