import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request, RequestHandler, Response } from 'express';
import multer from 'multer';
import { mkdirSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { catchError, from, mergeMap, Observable, switchMap } from 'rxjs';
import { BadRequest, DomainError, FieldErrors, PayloadTooLarge } from '../common/errors/domain-errors';
import { BodyGate } from '../common/http/body-gate';
import { MAX_JSON_DEPTH, nestedDeeperThan, TOO_DEEP_MESSAGE } from '../common/http/json-depth';
import { declaredLength } from '../common/http/request-bodies';
import { AppConfig } from '../config/app-config';

/** Form fields of a multipart body: as for the 1 MB JSON limit (contract §1), plus part headers. */
const FIELDS_BUDGET = 1024 * 1024 + 64 * 1024;

/** Uploads older than this in the upload folder were left by a process that died mid-request. */
const STALE_UPLOAD_MS = 60 * 60 * 1000;

/** The upload folder inside `ATTACHMENT_DIR`: files land here while the request is handled. */
export const incomingDir = (attachmentDir: string): string => join(resolve(attachmentDir), '.incoming');

class BodyTooLarge extends Error {}

/**
 * Reads a multipart create/update body as a stream (contract §4 `attachment`): form fields into
 * `req.body`, at most one file, written to the upload folder while it arrives and cut off at
 * `ATTACHMENT_MAX_BYTES` (413), the whole body at that plus 1 MB of fields. The temporary file is
 * removed once the request is handled (the service moves an accepted one into storage first).
 * Like every body, it is read only after authentication and through the {@link BodyGate} (contract §3,
 * §17); field names like `a[b][c]` nest, at most 32 levels as in JSON.
 */
@Injectable()
export class AttachmentUploadInterceptor implements NestInterceptor {
  private readonly upload: RequestHandler;
  private readonly maxBytes: number;
  private readonly budget: number;

  constructor(
    config: AppConfig,
    private readonly gate: BodyGate,
  ) {
    const destination = incomingDir(config.attachmentDir);
    mkdirSync(destination, { recursive: true });
    void removeStaleUploads(destination);
    this.maxBytes = config.attachmentMaxBytes;
    const budget = config.attachmentMaxBytes + FIELDS_BUDGET;
    this.budget = budget;
    const options: multer.Options & { streamHandler: (req: Readable, busboy: Writable) => void } = {
      storage: multer.diskStorage({ destination }),
      limits: { fileSize: config.attachmentMaxBytes, files: 1, fields: 1000, fieldSize: 1024 * 1024 },
      defParamCharset: 'utf8',
      fileFilter: (_req, file, accept) => {
        if (file.fieldname === 'attachment') return accept(null, true);
        accept(
          new FieldErrors({
            [file.fieldname]: ['Only the "attachment" field may carry a file.'],
          }) as unknown as Error,
        );
      },
      // Counts every byte of the body: a stream of small fields cannot grow without bound either.
      streamHandler: (req, busboy) => {
        let seen = 0;
        req.on('data', (chunk: Buffer) => {
          seen += chunk.length;
          if (seen > budget && !busboy.destroyed) busboy.destroy(new BodyTooLarge());
        });
        req.pipe(busboy);
      },
    };
    this.upload = multer(options).any();
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    // Another kind of body (JSON, a form, none): not this interceptor's to read, and no file to
    // remove afterwards, so the route runs as if it were not here (no rxjs chain and
    // temp-file cleanup on every JSON create).
    if (!req.is('multipart/form-data')) return next.handle();
    const res = http.getResponse<Response>();
    return from(this.read(req, res)).pipe(
      switchMap(() => next.handle()),
      mergeMap(async (value: unknown) => {
        await removeTemporaryFiles(req);
        return value;
      }),
      catchError(async (error: unknown) => {
        await removeTemporaryFiles(req);
        throw error;
      }),
    );
  }

  private async read(req: Request, res: Response): Promise<void> {
    // Weighs what it may grow to; the limits themselves (and their messages) are multer's and ours below.
    await this.gate.enterUntilAnswered(
      res,
      Math.min(declaredLength(req) ?? this.budget, this.budget),
      req.receivedAt,
    );
    await new Promise<void>((resolvePromise, reject) => {
      this.upload(req, res, (error?: unknown) => {
        if (error) reject(this.translate(error));
        else resolvePromise();
      });
    });
    if (nestedDeeperThan(req.body, MAX_JSON_DEPTH)) {
      throw new BadRequest(`Multipart form parse error - the body is ${TOO_DEEP_MESSAGE}.`);
    }
  }

  private translate(error: unknown): Error {
    if (error instanceof DomainError) return error;
    if (error instanceof BodyTooLarge) return new PayloadTooLarge();
    if (error instanceof multer.MulterError) {
      switch (error.code) {
        case 'LIMIT_FILE_SIZE':
          return new PayloadTooLarge(
            `The attachment is too large: at most ${this.maxBytes} bytes are accepted.`,
          );
        case 'LIMIT_FILE_COUNT':
          return new FieldErrors({ attachment: ['Only one file may be sent.'] });
        case 'LIMIT_FIELD_VALUE':
          return new PayloadTooLarge();
        default:
          return new BadRequest(`Multipart form parse error - ${error.message}`);
      }
    }
    // An I/O failure writing the upload is ours (500); anything else is a malformed body.
    if (error instanceof Error && 'syscall' in error) return error;
    return new BadRequest(
      `Multipart form parse error - ${error instanceof Error ? error.message : 'invalid body'}`,
    );
  }
}

async function removeTemporaryFiles(req: Request): Promise<void> {
  const files = Array.isArray(req.files) ? req.files : [];
  await Promise.all(files.filter((file) => file.path).map((file) => rm(file.path, { force: true })));
}

/**
 * Removes uploads a crashed process left behind. Only old ones: another replica sharing the
 * folder may be receiving a file right now.
 */
async function removeStaleUploads(directory: string): Promise<void> {
  try {
    const now = Date.now();
    for (const name of await readdir(directory)) {
      const path = join(directory, name);
      const info = await stat(path).catch(() => null);
      if (info?.isFile() && now - info.mtimeMs > STALE_UPLOAD_MS) await rm(path, { force: true });
    }
  } catch {
    // best effort: a later start tries again
  }
}
