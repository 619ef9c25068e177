import type { User } from './users/user.entity';

/** Who is calling: an API key (every gateway code) or a Basic user (its gateway codes only). */
export type Principal =
  | { kind: 'api-key'; apiKeyId: number; name: string }
  | { kind: 'user'; userId: number; username: string; gatewayCodes: string[]; isAdmin: boolean };

/** A Basic user (or a signed-in console admin) as a caller. */
export function userPrincipal(user: User): Principal {
  return {
    kind: 'user',
    userId: user.id,
    username: user.username,
    gatewayCodes: user.gatewayCodes,
    isAdmin: user.isAdmin,
  };
}

export type AuthScheme = 'api-key' | 'basic';

/** contract §3: a secret key may use every gateway code; a user only those it holds. */
export function mayUseGateway(principal: Principal, code: string): boolean {
  return principal.kind === 'api-key' || principal.gatewayCodes.includes(code);
}

/** A stable identity for scoping (idempotency keys, audit): `key:<id>` or `user:<id>`. */
export function principalScope(principal: Principal): string {
  return principal.kind === 'api-key' ? `key:${principal.apiKeyId}` : `user:${principal.userId}`;
}
