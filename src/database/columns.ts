import { Column, ColumnOptions, ValueTransformer } from 'typeorm';

/**
 * Money: DECIMAL(19,6) on MySQL (mysql2 returns it as a string); the SQLite migrations declare the
 * same columns as VARCHAR so the exact decimal text survives (SQLite would turn DECIMAL into a
 * float). Either way code sees a decimal string, never a JS number.
 */
const decimalText: ValueTransformer = {
  to: (value: string | null | undefined) => value,
  from: (value: string | number | null | undefined) =>
    value === null || value === undefined ? value : String(value),
};

export const MoneyColumn = (options: ColumnOptions = {}): PropertyDecorator =>
  Column({ type: 'decimal', precision: 19, scale: 6, transformer: decimalText, ...options });

/** UTC timestamps with millisecond precision on both dialects. */
export const TimestampColumn = (options: ColumnOptions = {}): PropertyDecorator =>
  Column({ type: 'datetime', precision: 3, ...options });

/** A JSON document stored as text (lists and dicts of the transaction). */
export const JsonColumn = (options: ColumnOptions = {}): PropertyDecorator =>
  Column({ type: 'simple-json', ...options });
