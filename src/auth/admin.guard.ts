import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { PermissionDenied } from '../common/errors/domain-errors';

/** After authentication: only a Basic user with `is_admin` passes (contract §3 "Admin"). */
@Injectable()
export class AdminGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const principal = context.switchToHttp().getRequest<Request>().principal;
    if (principal?.kind === 'user' && principal.isAdmin) return true;
    throw new PermissionDenied();
  }
}
