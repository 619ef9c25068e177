import type { Readable } from 'node:stream';

/**
 * Where attachment bytes live (contract §12). The service only knows keys it generated itself; a
 * driver maps them to a place (a local folder by default; an object store would fit the same
 * three calls). Registered under this class as the injection token.
 */
export abstract class AttachmentStorage {
  /** Stores the (temporary, local) file at `sourcePath` under `key`, consuming the source. */
  abstract put(key: string, sourcePath: string): Promise<void>;
  /** The stored bytes, or null when nothing is stored under `key`. */
  abstract open(key: string): Promise<{ stream: Readable; size: number } | null>;
  /** Removes `key`; removing a missing key is not an error. */
  abstract remove(key: string): Promise<void>;
}
