/**
 * `checkApi` on an API that is not Paygate's (issue 32): Albums, a photo store with two credential roles on two
 * security schemes (an admin bearer token makes albums; a member API key uploads photos as real multipart files and
 * deletes them; both read) and its own error shape. Its server is written here with node:http, independent of Paygate's
 * scaffold. A correct server passes with nothing but the two credentials; each planted defect is caught, by name.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { checkApi } from './check-api.js';

const PROBLEM = { $ref: '#/components/responses/Problem' };
const DOC = {
  openapi: '3.1.0',
  info: { title: 'Albums', version: '2.0.0' },
  components: {
    securitySchemes: {
      adminToken: { type: 'http', scheme: 'bearer' },
      memberKey: { type: 'apiKey', in: 'header', name: 'X-Member-Key' },
    },
    responses: {
      Problem: {
        description: 'error',
        content: {
          'application/problem+json': {
            schema: { type: 'object', required: ['type', 'detail'], properties: { type: { type: 'string' }, detail: { type: 'string' } } },
          },
        },
      },
    },
    schemas: {
      Album: {
        type: 'object',
        required: ['id', 'name', 'photo_count'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', pattern: '^alb_[0-9a-f]{8}$' },
          name: { type: 'string', minLength: 1, maxLength: 40 },
          photo_count: { type: 'integer', minimum: 0 },
        },
      },
      Photo: {
        type: 'object',
        required: ['id', 'album_id', 'caption', 'bytes', 'content_url'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', pattern: '^ph_[0-9a-f]{8}$' },
          album_id: { type: 'string', pattern: '^alb_[0-9a-f]{8}$' },
          caption: { type: 'string', maxLength: 80 },
          bytes: { type: 'integer', minimum: 1 },
          content_url: { type: 'string', format: 'uri-reference' },
        },
      },
    },
  },
  paths: {
    '/albums': {
      post: {
        operationId: 'createAlbum',
        tags: ['albums'],
        security: [{ adminToken: [] }],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['name'],
                additionalProperties: false,
                properties: { name: { type: 'string', minLength: 1, maxLength: 40 } },
              },
              example: { name: 'Holidays' },
            },
          },
        },
        responses: {
          '201': { description: 'made', content: { 'application/json': { schema: { $ref: '#/components/schemas/Album' } } } },
          '400': PROBLEM,
          '401': PROBLEM,
        },
      },
    },
    '/albums/{album_id}': {
      get: {
        operationId: 'getAlbum',
        tags: ['albums'],
        security: [{ adminToken: [] }, { memberKey: [] }],
        parameters: [{ name: 'album_id', in: 'path', required: true, schema: { type: 'string', pattern: '^alb_[0-9a-f]{8}$' } }],
        responses: {
          '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Album' } } } },
          '400': PROBLEM,
          '401': PROBLEM,
          '404': PROBLEM,
        },
      },
    },
    '/albums/{album_id}/photos': {
      post: {
        operationId: 'uploadPhoto',
        tags: ['photos'],
        security: [{ memberKey: [] }],
        parameters: [{ name: 'album_id', in: 'path', required: true, schema: { type: 'string', pattern: '^alb_[0-9a-f]{8}$' } }],
        requestBody: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: {
                type: 'object',
                required: ['image', 'caption'],
                properties: { image: { type: 'string', format: 'binary' }, caption: { type: 'string', minLength: 1, maxLength: 80 } },
              },
              encoding: { image: { contentType: 'image/png' } },
            },
          },
        },
        responses: {
          '201': {
            description: 'stored',
            headers: { Location: { schema: { type: 'string' }, required: true } },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Photo' } } },
          },
          '400': PROBLEM,
          '401': PROBLEM,
          '404': PROBLEM,
          '415': PROBLEM,
        },
      },
    },
    '/photos/{photo_id}': {
      get: {
        operationId: 'getPhoto',
        tags: ['photos'],
        security: [{ adminToken: [] }, { memberKey: [] }],
        parameters: [{ name: 'photo_id', in: 'path', required: true, schema: { type: 'string', pattern: '^ph_[0-9a-f]{8}$' } }],
        responses: {
          '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Photo' } } } },
          '400': PROBLEM,
          '401': PROBLEM,
          '404': PROBLEM,
        },
      },
      delete: {
        operationId: 'deletePhoto',
        tags: ['photos'],
        security: [{ memberKey: [] }],
        parameters: [{ name: 'photo_id', in: 'path', required: true, schema: { type: 'string', pattern: '^ph_[0-9a-f]{8}$' } }],
        responses: { '204': { description: 'gone' }, '400': PROBLEM, '401': PROBLEM, '404': PROBLEM },
      },
    },
    '/photos/{photo_id}/content': {
      get: {
        operationId: 'getPhotoContent',
        tags: ['photos'],
        security: [{ adminToken: [] }, { memberKey: [] }],
        parameters: [{ name: 'photo_id', in: 'path', required: true, schema: { type: 'string', pattern: '^ph_[0-9a-f]{8}$' } }],
        responses: { '200': { description: 'the image', content: { 'image/png': {} } }, '400': PROBLEM, '401': PROBLEM, '404': PROBLEM },
      },
    },
  },
};

const FIXTURE_MUTANTS = [
  'upload-without-file-accepted',
  'created-answers-200',
  'content-served-as-text',
  'storage-path-leaked',
  'deleted-photo-still-readable',
  'upload-without-key-accepted',
] as const;
type FixtureMutant = (typeof FIXTURE_MUTANTS)[number];

/** The Albums server; `mutant` plants one defect. */
function albums(mutant?: FixtureMutant): Promise<{ server: Server; baseUrl: string }> {
  const albumsById = new Map<string, { id: string; name: string; photo_count: number }>();
  const photos = new Map<string, { id: string; album_id: string; caption: string; bytes: number; content_url: string; png: Buffer }>();
  let n = 0;
  const id = (prefix: string) => `${prefix}_${(++n).toString(16).padStart(8, '0')}`;
  const problem = (res: ServerResponse, status: number, detail: string) => {
    res
      .writeHead(status, { 'content-type': 'application/problem+json' })
      .end(JSON.stringify({ type: `https://albums.example/problems/${status}`, detail }));
  };
  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://albums.test');
    const admin = req.headers.authorization === 'Bearer admin-token';
    const member =
      req.headers['x-member-key'] === 'member-key' ||
      (mutant === 'upload-without-key-accepted' &&
        req.method === 'POST' &&
        url.pathname.endsWith('/photos') &&
        req.headers['x-member-key'] === undefined);
    const segments = url.pathname.split('/').filter(Boolean);
    if (req.method === 'POST' && url.pathname === '/albums') {
      if (!admin) return problem(res, 401, 'an admin token is required');
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return problem(res, 400, 'not JSON');
      }
      const name = (body as { name?: unknown } | null)?.name;
      if (
        typeof body !== 'object' ||
        body === null ||
        Array.isArray(body) ||
        Object.keys(body).some((k) => k !== 'name') ||
        typeof name !== 'string' ||
        name.length < 1 ||
        name.length > 40
      )
        return problem(res, 400, 'name: 1 to 40 characters, nothing else');
      const album = { id: id('alb'), name, photo_count: 0 };
      albumsById.set(album.id, album);
      return json(res, mutant === 'created-answers-200' ? 200 : 201, album);
    }
    if (segments[0] === 'albums' && segments.length >= 2) {
      if (!admin && !member) return problem(res, 401, 'credentials required');
      if (!/^alb_[0-9a-f]{8}$/.test(segments[1]!)) return problem(res, 400, 'album_id is malformed');
      const album = albumsById.get(segments[1]!);
      if (!album) return problem(res, 404, 'no such album');
      if (segments.length === 2 && req.method === 'GET') return json(res, 200, album);
      if (segments[2] === 'photos' && req.method === 'POST') {
        if (!member) return problem(res, 401, 'a member key is required');
        const type = req.headers['content-type'] ?? '';
        if (!type.startsWith('multipart/form-data')) return problem(res, 415, 'multipart/form-data only');
        let form: FormData;
        try {
          form = await new Response(raw, { headers: { 'content-type': type } }).formData();
        } catch {
          return problem(res, 400, 'the multipart body does not parse (a boundary?)');
        }
        const image = form.get('image');
        const caption = form.get('caption');
        const keys = [...new Set([...form.keys()])];
        if (keys.some((k) => k !== 'image' && k !== 'caption')) return problem(res, 400, 'unknown part');
        if (typeof caption !== 'string' || caption.length < 1 || caption.length > 80)
          return problem(res, 400, 'caption: 1 to 80 characters');
        let png = Buffer.alloc(0);
        if (image instanceof Blob) png = Buffer.from(await image.arrayBuffer());
        else if (mutant !== 'upload-without-file-accepted') return problem(res, 400, 'image: a file part is required');
        if (image instanceof Blob && !png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
          return problem(res, 400, 'image: not a PNG');
        const photo = { id: id('ph'), album_id: album.id, caption, bytes: Math.max(1, png.length), content_url: '', png };
        photo.content_url = `/photos/${photo.id}/content`;
        photos.set(photo.id, photo);
        album.photo_count++;
        const { png: _bytes, ...view } = photo;
        return json(res, 201, mutant === 'storage-path-leaked' ? { ...view, storage_path: `/var/albums/${photo.id}.png` } : view, {
          Location: `/photos/${photo.id}`,
        });
      }
      return problem(res, 405, 'method not allowed');
    }
    if (segments[0] === 'photos' && segments.length >= 2) {
      if (!admin && !member) return problem(res, 401, 'credentials required');
      if (!/^ph_[0-9a-f]{8}$/.test(segments[1]!)) return problem(res, 400, 'photo_id is malformed');
      const photo = photos.get(segments[1]!);
      if (!photo || (photo.png.length === 0 && mutant !== 'upload-without-file-accepted' && false))
        return problem(res, 404, 'no such photo');
      if (segments.length === 2 && req.method === 'GET') {
        const { png: _bytes, ...view } = photo;
        return json(res, 200, view);
      }
      if (segments.length === 2 && req.method === 'DELETE') {
        if (!member) return problem(res, 401, 'a member key is required');
        if (mutant !== 'deleted-photo-still-readable') photos.delete(photo.id);
        return res.writeHead(204).end();
      }
      if (segments[2] === 'content' && req.method === 'GET')
        return res.writeHead(200, { 'content-type': mutant === 'content-served-as-text' ? 'text/plain' : 'image/png' }).end(photo.png);
      return problem(res, 405, 'method not allowed');
    }
    return problem(res, 404, 'no route');
  };
  const server = createServer((req, res) => void handle(req, res).catch((e: Error) => problem(res, 500, e.message)));
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })),
  );
}

const servers: Server[] = [];
afterAll(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));

async function run(mutant?: FixtureMutant) {
  const { server, baseUrl } = await albums(mutant);
  servers.push(server);
  // two roles, one credential each, on two schemes: nothing says which operation takes which
  return checkApi({
    document: DOC,
    baseUrl,
    credentials: [
      { name: 'member', auth: { memberKey: 'member-key' } },
      { name: 'admin', auth: { adminToken: 'admin-token' } },
    ],
    // nothing here happens later on its own: no need to wait for it
    settleMs: 0,
  });
}

describe('a non-Paygate API: two credential roles, multipart uploads (issue 32)', () => {
  it('a correct server passes: every operation reaches its 2xx with the role its scheme needs, uploads are real files', async () => {
    const report = await run();
    expect(report.failures).toEqual([]);
    expect(Object.fromEntries(report.coverage.map((c) => [c.operationId, c.outcome]))).toEqual({
      createAlbum: 'passed',
      getAlbum: 'passed',
      uploadPhoto: 'passed',
      getPhoto: 'passed',
      getPhotoContent: 'passed',
      deletePhoto: 'passed',
    });
    const upload = report.cases.find((c) => c.operationId === 'uploadPhoto' && c.check === 'positive');
    expect(upload?.status).toBe(201);
    expect(
      report.cases.some(
        (c) => c.operationId === 'uploadPhoto' && /body\.image: required property "image" missing/.test(c.request) && c.status === 400,
      ),
    ).toBe(true);
  });

  it.each([
    ['upload-without-file-accepted', 'negative_data_rejection'],
    ['created-answers-200', 'status_code_conformance'],
    ['content-served-as-text', 'content_type_conformance'],
    ['storage-path-leaked', 'response_schema_conformance'],
    ['deleted-photo-still-readable', 'use_after_free'],
    ['upload-without-key-accepted', 'ignored_auth'],
  ] as const)('mutant %s is caught by %s', async (mutant, check) => {
    const report = await run(mutant);
    expect(report.failures.map((f) => f.check)).toContain(check);
  });
});
