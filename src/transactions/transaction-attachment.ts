import { Injectable } from '@nestjs/common';
import { rm } from 'node:fs/promises';
import type { EntityManager } from 'typeorm';
import {
  attachmentUrl,
  AttachmentsService,
  CheckedUpload,
  StagedAttachment,
} from '../attachments/attachments.service';
import { FieldErrors } from '../common/errors/domain-errors';
import { AppConfig } from '../config/app-config';
import { ShortLinksService } from '../short-links/short-links.service';
import type { TransactionBody } from './transaction-body';
import type { Transaction } from './transaction.entity';
import { checkoutUrl } from './transaction-urls';

const ONLY_MULTIPART = 'Attachments can only be sent as multipart/form-data.';
const NOT_A_FILE = 'The submitted data was not a file. Check the encoding type on the form.';

/**
 * What one create/update request does to the transaction's attachment: keep it (nothing sent),
 * clear it (`null`, or an empty multipart/form value), or replace it with an uploaded file.
 */
export interface AttachmentChange {
  readonly kind: 'keep' | 'clear' | 'replace';
  /** Messages reported under `attachment`, with the other fields' errors. */
  readonly errors: string[] | null;
  /** The checked file of a `replace` (still in the upload folder). */
  readonly upload: CheckedUpload | null;
}

const change = (
  kind: AttachmentChange['kind'],
  errors: string[] | null = null,
  upload: CheckedUpload | null = null,
): AttachmentChange => ({ kind, errors, upload });

/** The columns the attachment and the short links decide. */
export type AttachmentColumns = Pick<
  Transaction,
  'attachmentToken' | 'attachmentName' | 'attachmentShortUrl' | 'checkoutShortUrl'
>;

/** What {@link TransactionAttachments.write} wrote: the columns, and the file it replaced. */
export interface AttachmentWrite {
  columns: AttachmentColumns;
  /** Storage key of the file this write replaced or cleared: removed once it has committed. */
  replacedKey: string | null;
}

/**
 * The transaction side of attachments and short links (contract §4 `attachment`,
 * `shortify_*`; §12), as steps a create or update calls in order: {@link receive} the request's
 * file, {@link checked} (its errors with the fields'), {@link stage} it in storage, {@link write}
 * it inside the caller's unit of work, then {@link committed} (the replaced file goes) or
 * {@link discard} (the new file goes).
 */
@Injectable()
export class TransactionAttachments {
  constructor(
    private readonly attachments: AttachmentsService,
    private readonly shortLinks: ShortLinksService,
    private readonly config: AppConfig,
  ) {}

  /** Reads and checks the `attachment` of a body. Its errors are reported by {@link validate}. */
  async receive(body: TransactionBody): Promise<AttachmentChange> {
    const field = body.fields.attachment;
    const file = body.files[0];
    if (body.mediaType === 'multipart' && file) {
      const checked = await this.attachments.check(file);
      return checked.errors ? change('replace', checked.errors) : change('replace', null, checked.upload);
    }
    if (field === undefined) return change('keep');
    if (field === null || (body.mediaType !== 'json' && field === '')) return change('clear');
    return change('keep', [body.mediaType === 'multipart' ? NOT_A_FILE : ONLY_MULTIPART]);
  }

  /** Whether the transaction will have an attachment (sent now, or stored and kept). */
  hasAttachment(change: AttachmentChange, stored: Transaction | null): boolean {
    if (change.kind === 'replace') return true;
    return change.kind === 'keep' && Boolean(stored?.attachmentToken);
  }

  /**
   * The result of the fields' `validation`, with the attachment's errors reported together with
   * the fields' (400), or alone when the fields are valid.
   */
  async checked<T>(change: AttachmentChange, validation: Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await validation;
    } catch (error) {
      if (change.errors && error instanceof FieldErrors) {
        throw new FieldErrors({ ...error.errors, attachment: change.errors });
      }
      throw error;
    }
    if (change.errors) throw new FieldErrors({ attachment: change.errors });
    return result;
  }

  /** Moves a sent file into storage, once everything is valid (before, not inside, the database write). */
  stage(change: AttachmentChange): Promise<StagedAttachment | null> {
    return change.upload ? this.attachments.stage(change.upload) : Promise.resolve(null);
  }

  /**
   * Inside the caller's unit of work that writes the transaction: records the staged file, drops
   * the record of the one it replaces, makes the short links the flags ask for. Returns the
   * columns, and the replaced file for {@link committed}.
   */
  async write(
    manager: EntityManager,
    change: AttachmentChange,
    staged: StagedAttachment | null,
    stored: Pick<Transaction, 'sessionId'> & AttachmentColumns,
    wanted: Partial<Pick<Transaction, 'shortifyAttachmentUrl' | 'shortifyCheckoutUrl'>>,
  ): Promise<AttachmentWrite> {
    let replacedKey: string | null = null;
    let token = stored.attachmentToken ?? null;
    let name = stored.attachmentName ?? null;
    if (change.kind !== 'keep' && token) replacedKey = await this.attachments.detach(manager, token);
    if (change.kind === 'clear') token = name = null;
    if (staged) {
      await this.attachments.record(manager, staged);
      ({ token, fileName: name } = staged);
    }
    const base = this.config.publicBaseUrl;
    let attachmentShortUrl = '';
    if (wanted.shortifyAttachmentUrl && token && name) {
      attachmentShortUrl =
        token === stored.attachmentToken && stored.attachmentShortUrl
          ? stored.attachmentShortUrl
          : await this.shortLinks.create(manager, attachmentUrl(base, token, name));
    }
    let checkoutShortUrl = '';
    if (wanted.shortifyCheckoutUrl) {
      checkoutShortUrl =
        stored.checkoutShortUrl ||
        (await this.shortLinks.create(manager, checkoutUrl(base, stored.sessionId)));
    }
    const columns = { attachmentToken: token, attachmentName: name, attachmentShortUrl, checkoutShortUrl };
    return { columns, replacedKey };
  }

  /** After the write committed: removes the file it replaced or cleared. */
  async committed(write: AttachmentWrite): Promise<void> {
    if (write.replacedKey) await this.attachments.deleteStored(write.replacedKey);
  }

  /** After a create/update that wrote nothing: removes the sent file, staged or still uploaded. */
  async discard(change: AttachmentChange, staged: StagedAttachment | null): Promise<void> {
    if (staged) await this.attachments.deleteStored(staged.storageKey);
    if (change.upload) await rm(change.upload.tempPath, { force: true });
  }
}
