import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { describe, expect, it } from 'vitest';
import { formEncodedQuerySpaces, onRequestStep } from './on-request.js';

/** An app with the onRequest step, a route after it, and an error handler answering `error: <message>`. */
async function serve(step: RequestHandler, after: RequestHandler, path: string): Promise<{ status: number; text: string }> {
  const app = express();
  app.use(step);
  app.use(after);
  app.use((err: Error, _req: Request, res: Response, _next: NextFunction) => {
    res.status(500).send(`error: ${err.message}`);
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`);
    return { status: response.status, text: await response.text() };
  } finally {
    server.close();
  }
}

describe('onRequest step', () => {
  it('spells a `+` of the query string %20 in `url` and `originalUrl`, and leaves the path alone', () => {
    const req = { url: '/a+b?q=x+y&r=1', originalUrl: '/base/a+b?q=x+y&r=1' } as Request;
    let called = false;
    formEncodedQuerySpaces(req, {} as Response, () => {
      called = true;
    });
    expect(called).toBe(true);
    expect(req.url).toBe('/a+b?q=x%20y&r=1');
    expect(req.originalUrl).toBe('/base/a+b?q=x%20y&r=1');
  });

  it('without the app hook: the first steps only, then the next layer', async () => {
    const answer = await serve(onRequestStep(undefined), (req, res) => void res.send(`next layer saw ${req.url}`), '/x?q=a+b');
    expect(answer).toEqual({ status: 200, text: 'next layer saw /x?q=a%20b' });
  });

  it('runs the app hook after the first steps (it sees the rewritten query), then the next layer', async () => {
    const seen: string[] = [];
    const hook: RequestHandler = (req, _res, next) => {
      seen.push(`hook ${req.url}`);
      next();
    };
    const answer = await serve(onRequestStep(hook), (_req, res) => void res.send('next layer'), '/x?q=a+b');
    expect(answer).toEqual({ status: 200, text: 'next layer' });
    expect(seen).toEqual(['hook /x?q=a%20b']);
  });

  it('the hook may answer itself: nothing after it runs', async () => {
    const answer = await serve(
      onRequestStep((_req, res) => void res.status(204).end()),
      () => expect.unreachable('the next layer runs'),
      '/x',
    );
    expect(answer.status).toBe(204);
  });

  describe('with the route step in the same layer (D180 onRequest hook and the one-layer scaffold)', () => {
    const route: RequestHandler = (_req, res) => void res.send('route step');
    const noNextLayer: RequestHandler = (_req, res) => void res.status(418).send('next layer');

    it("the route step runs in the hook's layer when the hook calls next()", async () => {
      const answer = await serve(
        onRequestStep(
          (_req, _res, next) => next(),
          () => route,
        ),
        noNextLayer,
        '/x',
      );
      expect(answer).toEqual({ status: 200, text: 'route step' });
    });

    it('reads the route step when a request arrives (it is put together after the layer is registered)', async () => {
      let late: RequestHandler | undefined;
      const step = onRequestStep(
        (_req, _res, next) => next(),
        () => late!,
      );
      late = route;
      expect(await serve(step, noNextLayer, '/x')).toEqual({ status: 200, text: 'route step' });
    });

    it("a hook's next(error) goes to the error handler, not the route step", async () => {
      const answer = await serve(
        onRequestStep(
          (_req, _res, next) => next(new Error('refused')),
          () => expect.unreachable('route step runs'),
        ),
        noNextLayer,
        '/x',
      );
      expect(answer).toEqual({ status: 500, text: 'error: refused' });
    });

    it('a synchronous throw of the route step goes to the error handler, also when the hook calls next() later', async () => {
      const throwing: RequestHandler = () => {
        throw new Error('thrown in route');
      };
      const later: RequestHandler = (_req, _res, next) => void setImmediate(() => next());
      expect(
        await serve(
          onRequestStep(later, () => throwing),
          noNextLayer,
          '/x',
        ),
      ).toEqual({ status: 500, text: 'error: thrown in route' });
    });

    it('an answer sent while a body is still arriving closes the connection (the first steps run before the hook)', async () => {
      const app = express();
      app.use(
        onRequestStep(
          (_req, res) => void res.status(400).send('no'),
          () => route,
        ),
      );
      const server = app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      try {
        const { request } = await import('node:http');
        const connection = await new Promise<string | undefined>((resolve, reject) => {
          const req = request(
            {
              port: (server.address() as AddressInfo).port,
              host: '127.0.0.1',
              method: 'POST',
              path: '/x',
              headers: { 'content-length': '100000' },
            },
            (res) => {
              res.resume();
              resolve(res.headers.connection);
            },
          );
          req.on('error', reject);
          req.write('x'.repeat(10));
        });
        expect(connection).toBe('close');
      } finally {
        server.closeAllConnections();
        server.close();
      }
    });
  });
});
