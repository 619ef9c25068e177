import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { BasicStrategy as PassportBasicStrategy } from 'passport-http';
import { UsersService } from '../users/users.service';
import { userPrincipal, type Principal } from '../principal';
import { basicCredentials, parseAuthorization, settle, type StrategyCreated } from './authorization-header';

/** `Authorization: Basic base64(username:password)` (contract §3). */
@Injectable()
export class BasicStrategy extends PassportStrategy(PassportBasicStrategy, 'basic') {
  constructor(private readonly users: UsersService) {
    super();
  }

  /**
   * Reads the header ourselves: passport-http cuts a password at its second colon and needs
   * exactly one space after `Basic`, so `pass:word` could never log in.
   */
  override authenticate(this: StrategyCreated<BasicStrategy>, req: Request): void {
    const header = parseAuthorization(req.headers.authorization);
    const credentials = header?.scheme === 'basic' ? basicCredentials(header.credentials) : null;
    if (!credentials) return this.fail(401);
    settle(this, this.validate(credentials.username, credentials.password));
  }

  async validate(username: string, password: string): Promise<Principal | false> {
    const user = await this.users.verify(username, password);
    return user ? userPrincipal(user) : false;
  }
}
