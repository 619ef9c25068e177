import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { BasicStrategy as PassportBasicStrategy } from 'passport-http';
import { UsersService } from '../users/users.service';
import type { Principal } from '../principal';

/** `Authorization: Basic base64(username:password)` (SPEC §3). */
@Injectable()
export class BasicStrategy extends PassportStrategy(PassportBasicStrategy, 'basic') {
  constructor(private readonly users: UsersService) {
    super();
  }

  async validate(username: string, password: string): Promise<Principal | false> {
    const user = await this.users.verify(username, password);
    if (!user) return false;
    return {
      kind: 'user',
      userId: user.id,
      username: user.username,
      gatewayCodes: user.gatewayCodes,
      isAdmin: user.isAdmin,
    };
  }
}
