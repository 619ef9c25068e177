import { Injectable, PipeTransform } from '@nestjs/common';
import { NotFound } from '../common/errors/domain-errors';

/** A numeric row id from the path; anything else names no row, so 404 (not 400). */
@Injectable()
export class EntityIdPipe implements PipeTransform<string, number> {
  transform(value: string): number {
    if (!/^[1-9]\d{0,9}$/.test(value) || Number(value) > 2_147_483_647) throw new NotFound();
    return Number(value);
  }
}
