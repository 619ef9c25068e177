import type { Delivery } from './delivery.entity';
import type { OutboxEvent } from './event.entity';

/** Deliveries written already claimed by this process's dispatcher, with their event. */
export interface ClaimedAtInsert {
  event: OutboxEvent;
  deliveries: Delivery[];
}

/** A claim on deliveries about to be written: its token (`claimed_by`) and the end of its lease. */
export interface DeliveryClaim {
  token: string;
  until: Date;
}

/**
 * The dispatcher, seen from what writes deliveries (the outbox, a redelivery): injected through
 * {@link DELIVERY_DISPATCH}. The deliveries of an event recorded here are written claimed by it,
 * so right after the commit it sends them without claiming them in the database first. Should
 * this process die first, the claim's lease runs out and any replica's regular pass takes them
 * over. Deliveries written unclaimed are sent by a pass, run soon after their commit.
 */
export interface DeliveryDispatch {
  /** A fresh claim, or null while the dispatcher does not take new work (before start-up, stopping). */
  claim(now: Date): DeliveryClaim | null;
  /** Sends the deliveries written under a {@link claim}, once the unit that wrote them has committed. */
  take(claimed: ClaimedAtInsert): void;
  /** Unclaimed deliveries were committed: a pass runs soon. */
  poke(): void;
}

/** The DI token of the {@link DeliveryDispatch} (the `DispatcherService`, provided by the `EventsModule`). */
export const DELIVERY_DISPATCH = Symbol('DeliveryDispatch');

/**
 * For a process that writes deliveries but sends none right after the commit (tests that play
 * another replica's part): nothing is claimed at insert, and the regular passes, of this process
 * or another, send every delivery.
 */
export const NO_DELIVERY_DISPATCH: DeliveryDispatch = {
  claim: () => null,
  take: () => undefined,
  poke: () => undefined,
};
