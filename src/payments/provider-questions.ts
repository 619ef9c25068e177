import { Injectable } from '@nestjs/common';

/** How long an answer a provider gave is reused for the same question (contract §20.1: "a few seconds"). */
export const ANSWER_REUSE_MS = 5000;
/** Questions kept at most; the oldest are dropped first. */
const MAX_KEPT = 10_000;
/**
 * Calls at most per subject (an attempt) within one reuse window, whatever its questions' variants
 * (returns whose parameters differ): past it, the subject's latest answer is reused.
 */
export const MAX_CALLS_PER_SUBJECT = 3;

/** A question's call in flight, or its result once settled (kept {@link ANSWER_REUSE_MS}). */
interface Entry {
  promise: Promise<unknown>;
  settledAt: number | null;
}

/** The request's shared deadline passed before the provider answered (the outcome is unknown). */
export class ProviderDeadlinePassed extends Error {
  constructor() {
    super('The provider did not answer before the request’s deadline');
    this.name = 'ProviderDeadlinePassed';
  }
}

/**
 * Single flight and a short answer cache for the provider calls that unauthenticated routes trigger
 * (contract §20.1: the customer's return, the pay page, verified notifications): at most one call per
 * question (an attempt's reference and what is asked) is in flight in this replica, and its answer —
 * or its failure — is reused for {@link ANSWER_REUSE_MS}. So 100 identical returns within 10 s make at
 * most 3 provider calls, and a stranger cannot spend the merchant's rate limit at the provider.
 *
 * Per replica, in memory: replicas each ask at most this often, and an answer is only ever reused,
 * never invented (a stale "open" makes the customer wait a few seconds more, nothing else).
 */
@Injectable()
export class ProviderQuestions {
  private readonly entries = new Map<string, Entry>();
  /** Per subject: when its last calls started, and the latest of them. */
  private readonly subjects = new Map<string, { started: number[]; latest: Entry }>();

  /**
   * `call`'s answer for `key` (`<question>:<subject>`, the subject last: an attempt's reference): the
   * one in flight, or one settled less than {@link ANSWER_REUSE_MS} ago, or a new call — unless the
   * subject already made {@link MAX_CALLS_PER_SUBJECT} calls within the window, whose latest answer is
   * then reused. `deadline` (epoch ms) bounds this caller's wait, not the shared call.
   */
  ask<T>(key: string, call: () => Promise<T>, deadline?: number): Promise<T> {
    const now = Date.now();
    let entry = this.entries.get(key);
    if (!entry || (entry.settledAt !== null && now - entry.settledAt >= ANSWER_REUSE_MS)) {
      const subject = key.slice(key.lastIndexOf(':') + 1);
      const recent = this.subjects.get(subject);
      const started = (recent?.started ?? []).filter((at) => now - at < ANSWER_REUSE_MS);
      if (recent && started.length >= MAX_CALLS_PER_SUBJECT) {
        entry = recent.latest;
      } else {
        entry = this.start(key, call);
        this.subjects.delete(subject);
        this.subjects.set(subject, { started: [...started, now], latest: entry });
      }
    }
    return withDeadline(entry.promise as Promise<T>, deadline);
  }

  /** Forgets what was learnt about `reference` (after an act that changes it: a session expired). */
  forget(reference: string): void {
    for (const key of this.entries.keys()) if (key.endsWith(`:${reference}`)) this.entries.delete(key);
    this.subjects.delete(reference);
  }

  private start<T>(key: string, call: () => Promise<T>): Entry {
    const entry: Entry = { promise: Promise.resolve().then(call), settledAt: null };
    const settled = () => {
      entry.settledAt = Date.now();
    };
    entry.promise.then(settled, settled);
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > MAX_KEPT || this.subjects.size > MAX_KEPT) this.prune();
    return entry;
  }

  /** Drops settled answers past reuse, then the oldest entries beyond the bound. */
  private prune(): void {
    const now = Date.now();
    for (const [key, entry] of this.entries) {
      if (entry.settledAt !== null && now - entry.settledAt >= ANSWER_REUSE_MS) this.entries.delete(key);
    }
    for (const key of this.entries.keys()) {
      if (this.entries.size <= MAX_KEPT) break;
      this.entries.delete(key);
    }
    for (const [subject, recent] of this.subjects) {
      if (recent.started.every((at) => now - at >= ANSWER_REUSE_MS)) this.subjects.delete(subject);
    }
  }
}

/** `promise`, or a {@link ProviderDeadlinePassed} rejection at `deadline`. */
function withDeadline<T>(promise: Promise<T>, deadline: number | undefined): Promise<T> {
  if (deadline === undefined) return promise;
  const left = deadline - Date.now();
  if (left <= 0) return Promise.reject(new ProviderDeadlinePassed());
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProviderDeadlinePassed()), left);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
