import { Injectable, OnModuleDestroy } from '@nestjs/common';
import express, { type Request, type RequestHandler, type Response } from 'express';
import type { IncomingMessage } from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { BodyRefused, bodyParserError } from '../errors/body-errors';
import { BodyGate, LARGE_BODY_BYTES, LargeBodyGate } from './body-gate';
import { jsonBody, rejectInvalidUtf8 } from './json-body';
import { JsonParseThread } from './json-parse-thread';
import { rejectJsonSentAsForm } from './json-sent-as-form';
import { MAX_JSON_DEPTH } from './json-depth';

/** contract §1: JSON and urlencoded bodies over 1 MB → 413. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

const JSON_TYPES = ['application/json', 'application/*+json'];
const FORM_TYPE = 'application/x-www-form-urlencoded';
/** Bare bodies a provider may post to its notify route (KNET's kit posts the ciphertext alone). */
export const RAW_TEXT_TYPES = ['text/plain', 'application/octet-stream'];
/**
 * The provider notification route (`POST /b/checkout/v1/gateways/{code}/notify/`, contract §20,
 * §20.1): besides JSON and forms it takes a bare text body, read as the string it is (same 1 MB
 * limit, same gate): no other route does.
 */
const RAW_TEXT_ROUTE = /^\/b\/checkout\/v1\/gateways\/[^/]+\/notify\/?$/;

/** Whether the request is to the one route that reads a bare text body ({@link RAW_TEXT_ROUTE}). */
export function takesRawText(req: Request): boolean {
  return req.method === 'POST' && RAW_TEXT_ROUTE.test(req.path);
}

/**
 * Reads and parses a JSON or urlencoded request body into `req.body`, once per request, when asked:
 * by the global {@link BodyReadingInterceptor}, which Nest runs after every guard, so a request
 * that needs credentials is authenticated before its body is read (contract §3), and by a guard that
 * needs the body itself (the pages' CSRF token). Multipart bodies are the upload interceptor's.
 *
 * Each read passes the {@link BodyGate} (contract §17) with its declared length, until the request is
 * answered; one declared over the limit is refused before it is read or waits for the gate. A large one
 * (over {@link LARGE_BODY_BYTES}, or chunked) passes the {@link LargeBodyGate} first (one at a time); a
 * large JSON body is parsed off the event loop ({@link JsonParseThread}), and any large body, once
 * parsed, lets the loop serve its other callers before the route validates it.
 */
@Injectable()
export class RequestBodies implements OnModuleDestroy {
  private readonly reads = new WeakMap<Request, Promise<void>>();
  /** Where large JSON bodies are parsed (off the event loop). */
  readonly parseThread = new JsonParseThread();
  private readonly json = jsonBody(BODY_LIMIT_BYTES, {
    minBytes: LARGE_BODY_BYTES,
    parse: (text) => this.parseThread.parse(text),
  });
  // `depth` is body-parser 2's (its types predate it): qs then refuses deeper keys with a 400.
  private readonly form = express.urlencoded({
    extended: true,
    limit: BODY_LIMIT_BYTES,
    parameterLimit: 1000,
    // qs counts the levels below the body: `a[b]` is 1, so 31 makes the body's 32 (contract §17).
    depth: MAX_JSON_DEPTH - 1,
    verify: (req: IncomingMessage, res: unknown, body: Buffer, encoding: string) => {
      rejectInvalidUtf8(req, res, body, encoding);
      rejectJsonSentAsForm(body);
    },
  } as Parameters<typeof express.urlencoded>[0]);

  private readonly text = express.text({ type: RAW_TEXT_TYPES, limit: BODY_LIMIT_BYTES });

  constructor(
    private readonly gate: BodyGate,
    private readonly largeGate: LargeBodyGate,
  ) {}

  onModuleDestroy(): Promise<void> {
    return this.parseThread.close();
  }

  /** Resolves once `req.body` is set (or there is no body of these kinds); rejects with a DomainError. */
  read(req: Request, res: Response): Promise<void> {
    let read = this.reads.get(req);
    if (!read) {
      read = this.readOnce(req, res);
      this.reads.set(req, read);
    }
    return read;
  }

  private async readOnce(req: Request, res: Response): Promise<void> {
    // `req.is` is null when there is no body at all.
    const parser = req.is(JSON_TYPES)
      ? this.json
      : req.is(FORM_TYPE)
        ? this.form
        : takesRawText(req) && req.is(RAW_TEXT_TYPES)
          ? this.text
          : null;
    if (!parser) return;
    const declared = declaredLength(req);
    if (declared !== null && declared > BODY_LIMIT_BYTES)
      throw new BodyRefused(413, 'Request body is too large.');
    const bytes = declared ?? BODY_LIMIT_BYTES;
    const large = bytes > LARGE_BODY_BYTES;
    if (large) await this.largeGate.enterUntilAnswered(res, 1, req.receivedAt);
    await this.gate.enterUntilAnswered(res, bytes, req.receivedAt);
    try {
      await run(parser, req, res);
    } catch (error) {
      throw bodyParserError(error) ?? error;
    }
    if (large) await nextTurn();
  }
}

/** Whether the request has a body at all (what `req.is` checks first): chunked, or a length > 0. */
export function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/** `Content-Length`, or null when the body is chunked (it may grow up to the limit). */
export function declaredLength(req: Request): number | null {
  if (req.headers['transfer-encoding'] !== undefined) return null;
  const length = Number(req.headers['content-length']);
  return Number.isFinite(length) && length >= 0 ? length : null;
}

function run(handler: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    // body-parser passes an Error, or nothing.
    const done = (error?: Error | 'route' | 'router'): void =>
      error instanceof Error ? reject(error) : resolve();
    void handler(req, res, done);
  });
}
