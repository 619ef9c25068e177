import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { EntityManager, Repository } from 'typeorm';
import { Attachment } from './attachment.entity';
import { contentMatchesExtension } from './attachment-content';
import {
  ATTACHMENT_EXTENSIONS,
  ATTACHMENT_TYPES,
  AttachmentExtension,
  extensionOf,
  isAttachmentExtension,
  sanitizeFileName,
} from './attachment-files';
import { AttachmentStorage } from './attachment-storage';

/** An uploaded file (still in the upload folder) that passed every check. */
export interface CheckedUpload {
  tempPath: string;
  fileName: string;
  ext: AttachmentExtension;
  size: number;
}

/** A file moved into storage, not yet recorded in the database. */
export interface StagedAttachment {
  token: string;
  storageKey: string;
  fileName: string;
  contentType: string;
  size: number;
}

export type CheckResult = { upload: CheckedUpload; errors?: undefined } | { errors: string[] };

/** The absolute, unguessable URL an attachment is served at. */
/**
 * The public URL of an attachment: its random token and the file's extension, nothing the client
 * chose (contract §12: random names only). The client's (sanitised) name is only in the download's
 * `Content-Disposition`.
 */
export const attachmentUrl = (publicBaseUrl: string, token: string, fileName: string): string =>
  `${publicBaseUrl}/b/checkout/attachments/${token}.${extensionOf(fileName)}`;

/** Checks, stores, records and serves attachment files (contract §4 `attachment`, §12). */
@Injectable()
export class AttachmentsService {
  private readonly logger = new Logger(AttachmentsService.name);

  constructor(
    @InjectRepository(Attachment) private readonly attachments: Repository<Attachment>,
    private readonly storage: AttachmentStorage,
  ) {}

  /** Extension allowed, file not empty, bytes matching the extension. */
  async check(file: Express.Multer.File): Promise<CheckResult> {
    const ext = extensionOf(file.originalname);
    if (!isAttachmentExtension(ext)) {
      return {
        errors: [
          `File extension “${ext}” is not allowed. Allowed extensions are: ${ATTACHMENT_EXTENSIONS.join(', ')}.`,
        ],
      };
    }
    if (file.size === 0) return { errors: ['The submitted file is empty.'] };
    if (!(await contentMatchesExtension(file.path, ext))) {
      return { errors: [`The file content does not match its extension “${ext}”.`] };
    }
    return {
      upload: {
        tempPath: file.path,
        fileName: sanitizeFileName(file.originalname, ext),
        ext,
        size: file.size,
      },
    };
  }

  /** Moves a checked upload into storage under a random key (before the database write). */
  async stage(upload: CheckedUpload): Promise<StagedAttachment> {
    const storageKey = `${randomBytes(16).toString('hex')}.${upload.ext}`;
    await this.storage.put(storageKey, upload.tempPath);
    return {
      token: randomBytes(32).toString('base64url'),
      storageKey,
      fileName: upload.fileName,
      contentType: ATTACHMENT_TYPES[upload.ext],
      size: upload.size,
    };
  }

  /** Records a staged file, inside the caller's database transaction. */
  async record(manager: EntityManager, staged: StagedAttachment): Promise<void> {
    await manager
      .createQueryBuilder()
      .insert()
      .into(Attachment)
      .values({ ...staged, createdAt: new Date() })
      .updateEntity(false)
      .execute();
  }

  /**
   * Deletes the record of `token` inside the caller's transaction (its URL stops working at the
   * commit); returns the storage key, whose file the caller removes after the commit.
   */
  async detach(manager: EntityManager, token: string): Promise<string | null> {
    const repo = manager.getRepository(Attachment);
    const row = await repo.findOne({ where: { token } });
    if (!row) return null;
    await repo.delete({ id: row.id });
    return row.storageKey;
  }

  /** Removes stored bytes; a failure is logged, never thrown (the request already succeeded). */
  async deleteStored(storageKey: string): Promise<void> {
    try {
      await this.storage.remove(storageKey);
    } catch (error) {
      this.logger.error({ err: error, storageKey }, 'Could not remove an attachment file');
    }
  }

  /** The attachment served at `token`, with its bytes; null when there is none. */
  /** The file at `<token>.<ext>` (the last segment of its URL), or null: unknown token, other extension. */
  async open(urlName: string): Promise<{ attachment: Attachment; stream: Readable; size: number } | null> {
    const parsed = /^([A-Za-z0-9_-]{43})\.([a-z]{3,4})$/.exec(urlName);
    if (!parsed) return null;
    const [, token, ext] = parsed;
    const attachment = await this.attachments.findOne({ where: { token } });
    if (!attachment || extensionOf(attachment.fileName) !== ext) return null;
    const stored = await this.storage.open(attachment.storageKey);
    return stored && { attachment, ...stored };
  }
}
