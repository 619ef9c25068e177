import { Entity, PrimaryColumn, Column } from 'typeorm';
import { TimestampColumn } from '../database/columns';

/** A currency the service accepts, with the number of decimals its amounts carry. */
@Entity({ name: 'currencies' })
export class Currency {
  @PrimaryColumn({ type: 'varchar', length: 3 })
  code: string;

  @Column({ type: 'int' })
  digits: number;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;
}
