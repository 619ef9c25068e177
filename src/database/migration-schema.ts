import {
  QueryRunner,
  Table,
  TableColumn,
  TableForeignKey,
  TableIndex,
  type TableColumnOptions,
} from 'typeorm';
import { Dialect } from './dialect';

/**
 * The migrations' vocabulary (the schema written once for both dialects). Each helper
 * is one kind of column as the entities declare it (`src/database/columns.ts`), spelled for the
 * dialect the migration runs on:
 *
 * | kind        | MySQL / MariaDB                  | SQLite                                  |
 * |-------------|----------------------------------|-----------------------------------------|
 * | `id`        | `bigint`/`int` AUTO_INCREMENT    | `integer PRIMARY KEY AUTOINCREMENT`     |
 * | `money`     | `decimal(19,6)`                  | `varchar(40)` (the exact decimal text)  |
 * | `timestamp` | `datetime(3)`                    | `datetime`                              |
 * | `flag`      | `tinyint(1)`                     | `boolean`                               |
 * | `longText`  | `mediumtext`                     | `text`                                  |
 *
 * MySQL text columns are `utf8mb4` with the binary collation (case-sensitive keys), whatever the
 * database's default; tables are InnoDB.
 */
export class Schema {
  readonly mysql: boolean;

  constructor(private readonly q: QueryRunner) {
    this.mysql = Dialect.of(q).isMysql;
  }

  private text(options: TableColumnOptions): TableColumnOptions {
    return this.mysql ? { ...options, charset: 'utf8mb4', collation: 'utf8mb4_bin' } : options;
  }

  id(name = 'id', type: 'int' | 'bigint' = 'bigint'): TableColumnOptions {
    return {
      name,
      type: this.mysql ? type : 'integer',
      isPrimary: true,
      isGenerated: true,
      generationStrategy: 'increment',
    };
  }

  varchar(name: string, length: number, options: Partial<TableColumnOptions> = {}): TableColumnOptions {
    return this.text({ name, type: 'varchar', length: String(length), isNullable: false, ...options });
  }

  textColumn(name: string, options: Partial<TableColumnOptions> = {}): TableColumnOptions {
    return this.text({ name, type: 'text', isNullable: false, ...options });
  }

  longText(name: string, options: Partial<TableColumnOptions> = {}): TableColumnOptions {
    return this.text({ name, type: this.mysql ? 'mediumtext' : 'text', isNullable: false, ...options });
  }

  int(name: string, options: Partial<TableColumnOptions> = {}): TableColumnOptions {
    return { name, type: this.mysql ? 'int' : 'integer', isNullable: false, ...options };
  }

  bigint(name: string, options: Partial<TableColumnOptions> = {}): TableColumnOptions {
    return { name, type: this.mysql ? 'bigint' : 'integer', isNullable: false, ...options };
  }

  money(name: string): TableColumnOptions {
    return this.mysql
      ? { name, type: 'decimal', precision: 19, scale: 6, isNullable: false }
      : { name, type: 'varchar', length: '40', isNullable: false };
  }

  timestamp(name: string, options: Partial<TableColumnOptions> = {}): TableColumnOptions {
    return this.mysql
      ? { name, type: 'datetime', precision: 3, isNullable: false, ...options }
      : { name, type: 'datetime', isNullable: false, ...options };
  }

  flag(name: string, options: Partial<TableColumnOptions> = {}): TableColumnOptions {
    return this.mysql
      ? { name, type: 'tinyint', length: '1', isNullable: false, ...options }
      : { name, type: 'boolean', isNullable: false, ...options };
  }

  async createTable(
    name: string,
    columns: TableColumnOptions[],
    keys: {
      unique?: Record<string, string[]>;
      index?: Record<string, string[]>;
      references?: Reference[];
    } = {},
  ): Promise<void> {
    await this.q.createTable(
      new Table({
        name,
        columns,
        engine: this.mysql ? 'InnoDB' : undefined,
        indices: [
          ...Object.entries(keys.unique ?? {}).map(
            ([index, columnNames]) => new TableIndex({ name: index, columnNames, isUnique: true }),
          ),
          ...Object.entries(keys.index ?? {}).map(
            ([index, columnNames]) => new TableIndex({ name: index, columnNames }),
          ),
        ],
        foreignKeys: (keys.references ?? []).map(
          (r) =>
            new TableForeignKey({
              name: r.name,
              columnNames: [r.column],
              referencedTableName: r.table,
              referencedColumnNames: ['id'],
            }),
        ),
      }),
    );
    // New columns of the table (later migrations) default to the same character set too.
    if (this.mysql) await this.q.query(`ALTER TABLE \`${name}\` DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
  }

  async addColumns(table: string, columns: TableColumnOptions[]): Promise<void> {
    await this.q.addColumns(
      table,
      columns.map((c) => new TableColumn(c)),
    );
  }

  async createIndex(table: string, name: string, columnNames: string[], isUnique = false): Promise<void> {
    await this.q.createIndex(table, new TableIndex({ name, columnNames, isUnique }));
  }
}

/** A foreign key from `column` to `table.id`. */
export interface Reference {
  name: string;
  column: string;
  table: string;
}
