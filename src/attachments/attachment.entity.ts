import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../database/columns';

/** A stored attachment file: where its bytes are and how to serve them (contract §12). */
@Entity({ name: 'attachments' })
export class Attachment {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  /** The unguessable part of the public URL (32 random bytes, base64url). */
  @Column({ type: 'varchar', length: 64, unique: true })
  token: string;

  /** The storage driver's key (random; never derived from the client's file name). */
  @Column({ name: 'storage_key', type: 'varchar', length: 128 })
  storageKey: string;

  /** The client's file name, sanitised; served in `Content-Disposition`. */
  @Column({ name: 'file_name', type: 'varchar', length: 128 })
  fileName: string;

  @Column({ name: 'content_type', type: 'varchar', length: 128 })
  contentType: string;

  @Column({ type: 'int' })
  size: number;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;
}
