import { request } from 'node:http';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  setCookies: string[];
}

/**
 * One HTTP request to the test app from a chosen loopback address (`127.0.0.2`, …): the peer
 * address the service sees, for tests of what is counted per source. Supertest always connects
 * from 127.0.0.1.
 */
export function requestFrom(
  url: string,
  localAddress: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<RawAnswer> {
  const target = new URL(options.path, url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: options.method ?? 'GET',
        headers: {
          ...(options.body !== undefined
            ? { 'Content-Length': String(Buffer.byteLength(options.body)) }
            : {}),
          ...options.headers,
        },
        localAddress,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          if (/json/.test(res.headers['content-type'] ?? '')) body = JSON.parse(text) as unknown;
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            setCookies: res.headers['set-cookie'] ?? [],
          });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}
