import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { isUniqueViolation } from '../database/db-values';
import { ShortLink } from './short-link.entity';
import { randomShortCode, SHORT_CODE_PATTERN } from './short-code';

const ATTEMPTS = 5;

/** Short links `/s/{code}` (contract §12) for the checkout page and attachments. */
@Injectable()
export class ShortLinksService {
  constructor(
    @InjectRepository(ShortLink) private readonly links: Repository<ShortLink>,
    private readonly config: AppConfig,
  ) {}

  /**
   * Inside the caller's unit of work: makes a short link to `target` and returns its absolute URL. A
   * code already taken (the unique key says so) is drawn again.
   */
  async create(manager: EntityManager, target: string, nextCode = randomShortCode): Promise<string> {
    const repo = manager.getRepository(ShortLink);
    for (let attempt = 1; ; attempt++) {
      const code = nextCode();
      try {
        await repo
          .createQueryBuilder()
          .insert()
          .into(ShortLink)
          .values({ code, target, createdAt: new Date() })
          .updateEntity(false)
          .execute();
        return `${this.config.publicBaseUrl}/s/${code}`;
      } catch (error) {
        if (!isUniqueViolation(error) || attempt >= ATTEMPTS) throw error;
      }
    }
  }

  /** The target of `code`, or null. */
  async resolve(code: string): Promise<string | null> {
    if (!SHORT_CODE_PATTERN.test(code)) return null;
    const link = await this.links.findOne({ where: { code } });
    return link?.target ?? null;
  }
}
