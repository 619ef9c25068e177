import { PartialType } from '@nestjs/swagger';
import { CreateTransactionDto } from './create-transaction.dto';

/** Partial update: every create field, all optional; `null` clears an optional field. */
export class UpdateTransactionDto extends PartialType(CreateTransactionDto) {}
