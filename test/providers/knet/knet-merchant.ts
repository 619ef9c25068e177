import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  KnetClient,
  KnetExpectation,
  KnetPostContent,
  KnetUnverifiedError,
  KnetVerdict,
} from '../../../src/payments/providers/knet/knet-client';

/**
 * A minimal merchant around {@link KnetClient}, as the `knet` driver will be: `GET /pay/?track=`
 * sends the customer to KNET (303); `POST /notify/` is the responseURL (verifies the result,
 * records it, answers `REDIRECT=<receipt>`); `GET /receipt/?track=` shows what was recorded;
 * `GET /error/` shows KNET's error parameters.
 */
export class KnetTestMerchant {
  /** What we sent per track ID. */
  readonly expected = new Map<string, KnetExpectation>();
  /** Verified verdicts, in arrival order (duplicates included). */
  readonly verdicts: KnetVerdict[] = [];
  /** Error posts (plain text, unverified). */
  readonly errorPosts: Array<Extract<KnetPostContent, { kind: 'error' }>> = [];
  /** Posts refused as unverifiable, with the reason for logs. */
  readonly refused: string[] = [];
  /** `ok`: answers `REDIRECT=…`; `html`: answers a page instead; `slow`: answers after 2 s. */
  replyMode: 'ok' | 'html' | 'slow' = 'ok';

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly client: () => KnetClient,
  ) {}

  static async start(client: () => KnetClient): Promise<KnetTestMerchant> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const merchant = new KnetTestMerchant(
      server,
      `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      client,
    );
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      merchant.handle(req, res).catch((error: unknown) => {
        res.writeHead(500, { 'Content-Type': 'text/plain' });
        res.end(String(error));
      });
    });
    return merchant;
  }

  get responseUrl(): string {
    return `${this.url}/notify/`;
  }
  get errorUrl(): string {
    return `${this.url}/error/`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    if (req.method === 'GET' && url.pathname === '/pay/') {
      const trackId = url.searchParams.get('track') ?? '';
      const expectation = this.expected.get(trackId);
      if (!expectation) return send(res, 404, 'text/plain', 'unknown track');
      const redirect = this.client().paymentRedirect({
        ...expectation,
        responseUrl: this.responseUrl,
        errorUrl: this.errorUrl,
        udfs: { udf1: 'order 1' },
      });
      res.writeHead(303, { Location: redirect.url });
      return void res.end();
    }
    if (req.method === 'POST' && url.pathname === '/notify/') return this.notify(await readBody(req), res);
    if (req.method === 'GET' && url.pathname === '/receipt/') {
      const track = url.searchParams.get('track') ?? '';
      const verdict = [...this.verdicts].reverse().find((v) => v.message.trackId === track);
      const text = verdict ? `${verdict.outcome} ${verdict.message.result}` : 'no result recorded';
      return send(res, 200, 'text/html; charset=utf-8', page('Receipt', `<p id="outcome">${text}</p>`));
    }
    if (req.method === 'GET' && url.pathname === '/error/') {
      const error = `${url.searchParams.get('Error') ?? ''} ${url.searchParams.get('ErrorText') ?? ''}`;
      return send(res, 200, 'text/html; charset=utf-8', page('Payment error', `<p id="error">${error}</p>`));
    }
    send(res, 404, 'text/plain', 'not found');
  }

  private async notify(body: string, res: ServerResponse): Promise<void> {
    let track: string;
    try {
      const content = this.client().openResult(body);
      if (content.kind === 'error') {
        this.errorPosts.push(content);
        track = content.claimedTrackId;
      } else {
        const expected = this.expected.get(content.message.trackId);
        if (!expected) throw new KnetUnverifiedError('unknown track');
        this.verdicts.push(this.client().checkResult(content.message, expected));
        track = content.message.trackId;
      }
    } catch (error) {
      if (!(error instanceof KnetUnverifiedError)) throw error;
      this.refused.push(error.reason);
      return send(res, 400, 'text/plain', error.message);
    }
    if (this.replyMode === 'html') return send(res, 200, 'text/html', page('Thanks', '<p>Thanks</p>'));
    if (this.replyMode === 'slow') await new Promise((resolve) => setTimeout(resolve, 2000));
    send(res, 200, 'text/plain', this.client().notificationReply(`${this.url}/receipt/?track=${track}`));
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(status, { 'Content-Type': type });
  res.end(body);
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;
}
