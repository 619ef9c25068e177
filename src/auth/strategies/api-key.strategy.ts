import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { HeaderAPIKeyStrategy } from 'passport-headerapikey';
import { ApiKeysService } from '../api-keys/api-keys.service';
import type { Principal } from '../principal';
import { parseAuthorization, settle, type StrategyCreated } from './authorization-header';

/** `Authorization: Api-Key <prefix>.<secret>` (contract §3). */
@Injectable()
export class ApiKeyStrategy extends PassportStrategy(HeaderAPIKeyStrategy, 'api-key') {
  constructor(private readonly apiKeys: ApiKeysService) {
    super({ header: 'Authorization', prefix: 'Api-Key ' }, false);
  }

  /**
   * Reads the header ourselves: passport-headerapikey matches the prefix case-sensitively, but an
   * auth scheme name is case-insensitive (RFC 9110 §11.1), so `api-key <key>` must work too.
   */
  override authenticate(this: StrategyCreated<ApiKeyStrategy>, req: Request): void {
    const header = parseAuthorization(req.headers.authorization);
    if (header?.scheme !== 'api-key' || !header.credentials) return this.fail(401);
    settle(this, this.validate(header.credentials));
  }

  async validate(presented: string): Promise<Principal | false> {
    const apiKey = await this.apiKeys.verify(presented.trim());
    return apiKey ? { kind: 'api-key', apiKeyId: apiKey.id, name: apiKey.name } : false;
  }
}
