import type { Principal } from '../auth/principal';

declare global {
  namespace Express {
    interface Request {
      /** Set by CredentialsGuard on authenticated routes. */
      principal?: Principal;
    }
  }
}
export {};
