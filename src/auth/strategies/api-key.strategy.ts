import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { HeaderAPIKeyStrategy } from 'passport-headerapikey';
import { ApiKeysService } from '../api-keys/api-keys.service';
import type { Principal } from '../principal';

/** `Authorization: Api-Key <prefix>.<secret>` (SPEC §3). */
@Injectable()
export class ApiKeyStrategy extends PassportStrategy(HeaderAPIKeyStrategy, 'api-key') {
  constructor(private readonly apiKeys: ApiKeysService) {
    super({ header: 'Authorization', prefix: 'Api-Key ' }, false);
  }

  async validate(presented: string): Promise<Principal | false> {
    const apiKey = await this.apiKeys.verify(presented.trim());
    return apiKey ? { kind: 'api-key', apiKeyId: apiKey.id, name: apiKey.name } : false;
  }
}
