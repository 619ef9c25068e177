import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../database/columns';

/** `/s/{code}` → `target` (contract §12). The code's unique key is what makes codes unique. */
@Entity({ name: 'short_links' })
export class ShortLink {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ type: 'varchar', length: 16, unique: true })
  code: string;

  @Column({ type: 'varchar', length: 512 })
  target: string;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;
}
