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
import { UnitOfWork } from '../database/unit-of-work';
import { ShortLinksService } from '../short-links/short-links.service';
import type { TransactionBody } from './transaction-body';
import type { Transaction } from './transaction.entity';
import { checkoutUrl } from './transaction-urls';

const ONLY_MULTIPART = 'Attachments can only be sent as multipart/form-data.';
const NOT_A_FILE = 'The submitted data was not a file. Check the encoding type on the form.';

/**
 * What one create/update request does to the transaction's attachment: keep it (nothing sent),
 * clear it (`null`, or an empty multipart/form value), or replace it with an uploaded file.
 * Carries the file through the request: checked, then staged in storage, then committed (or
 * removed again).
 */
export class AttachmentChange {
  staged: StagedAttachment | null = null;
  /** Storage key of the file this change replaced or cleared, removed after the commit. */
  replacedKey: string | null = null;
  private committed = false;

  constructor(
    readonly kind: 'keep' | 'clear' | 'replace',
    /** Messages reported under `attachment`, with the other fields' errors. */
    readonly errors: string[] | null = null,
    readonly upload: CheckedUpload | null = null,
  ) {}

  /** True once the database write that applied this change has committed. */
  get isCommitted(): boolean {
    return this.committed;
  }

  /** Registered by {@link TransactionAttachments.apply} with the unit of work: runs at its commit. */
  readonly markCommitted = (): void => {
    this.committed = true;
  };
}

/** The columns the attachment and the short links decide. */
export type AttachmentColumns = Pick<
  Transaction,
  'attachmentToken' | 'attachmentName' | 'attachmentShortUrl' | 'checkoutShortUrl'
>;

/**
 * The transaction side of attachments and short links (contract §4 `attachment`,
 * `shortify_*`; §12): reads the request's file, stores and records it inside the transaction's
 * database write, makes the short links, and removes files nobody points at any more.
 */
@Injectable()
export class TransactionAttachments {
  constructor(
    private readonly attachments: AttachmentsService,
    private readonly shortLinks: ShortLinksService,
    private readonly config: AppConfig,
    private readonly uow: UnitOfWork,
  ) {}

  /** Reads and checks the `attachment` of a body. Its errors are reported by {@link validate}. */
  async receive(body: TransactionBody): Promise<AttachmentChange> {
    const field = body.fields.attachment;
    const file = body.files[0];
    if (body.mediaType === 'multipart' && file) {
      const checked = await this.attachments.check(file);
      return checked.errors
        ? new AttachmentChange('replace', checked.errors)
        : new AttachmentChange('replace', null, checked.upload);
    }
    if (field === undefined) return new AttachmentChange('keep');
    if (field === null || (body.mediaType !== 'json' && field === '')) return new AttachmentChange('clear');
    return new AttachmentChange('keep', [body.mediaType === 'multipart' ? NOT_A_FILE : ONLY_MULTIPART]);
  }

  /** Whether the transaction will have an attachment (sent now, or stored and kept). */
  hasAttachment(change: AttachmentChange, stored: Transaction | null): boolean {
    if (change.kind === 'replace') return true;
    return change.kind === 'keep' && Boolean(stored?.attachmentToken);
  }

  /**
   * Runs the field validation and reports the attachment's errors together with its own. Once
   * everything is valid, moves the file into storage (before, not inside, the database write).
   */
  async validate<T>(change: AttachmentChange, run: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await run();
    } catch (error) {
      if (change.errors && error instanceof FieldErrors) {
        throw new FieldErrors({ ...error.errors, attachment: change.errors });
      }
      throw error;
    }
    if (change.errors) throw new FieldErrors({ attachment: change.errors });
    if (change.upload && !change.staged) change.staged = await this.attachments.stage(change.upload);
    return result;
  }

  /**
   * Inside the database transaction that writes the transaction: records a new file, drops the
   * record of the one it replaces, makes the short links the flags ask for. Returns the columns.
   * The change counts as committed once that transaction commits (then {@link settling} removes
   * the replaced file; otherwise the new one).
   */
  async apply(
    manager: EntityManager,
    change: AttachmentChange,
    stored: Pick<Transaction, 'sessionId'> & AttachmentColumns,
    wanted: Partial<Pick<Transaction, 'shortifyAttachmentUrl' | 'shortifyCheckoutUrl'>>,
  ): Promise<AttachmentColumns> {
    this.uow.afterCommit(change.markCommitted); // never runs if this write rolls back
    change.replacedKey = null;
    let token = stored.attachmentToken ?? null;
    let name = stored.attachmentName ?? null;
    if (change.kind !== 'keep' && token) change.replacedKey = await this.attachments.detach(manager, token);
    if (change.kind === 'clear') token = name = null;
    if (change.staged) {
      await this.attachments.record(manager, change.staged);
      ({ token, fileName: name } = change.staged);
    }
    const base = this.config.publicBaseUrl;
    let attachmentShortUrl = '';
    if (wanted.shortifyAttachmentUrl && token && name) {
      attachmentShortUrl =
        token === stored.attachmentToken && stored.attachmentShortUrl
          ? stored.attachmentShortUrl
          : await this.shortLinks.create(attachmentUrl(base, token, name), manager);
    }
    let checkoutShortUrl = '';
    if (wanted.shortifyCheckoutUrl) {
      checkoutShortUrl =
        stored.checkoutShortUrl ||
        (await this.shortLinks.create(checkoutUrl(base, stored.sessionId), manager));
    }
    return { attachmentToken: token, attachmentName: name, attachmentShortUrl, checkoutShortUrl };
  }

  /**
   * Runs a create/update with the change and then tidies its files: after a commit the replaced
   * file goes; otherwise the new one (staged or still in the upload folder) does.
   */
  async settling<T>(change: AttachmentChange, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } finally {
      if (change.isCommitted) {
        if (change.replacedKey) await this.attachments.deleteStored(change.replacedKey);
      } else {
        if (change.staged) await this.attachments.deleteStored(change.staged.storageKey);
        if (change.upload) await rm(change.upload.tempPath, { force: true });
      }
    }
  }
}
